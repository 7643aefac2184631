// a PHY driver of the test tree: its phy_driver table names the parts
static struct phy_driver acme_drivers[] = {
	{
		.name		= "Acme AQZ113 rev.B0",
	}, {
		.name		= "Acme Generic PHY",
	},
};
static struct mdio_driver_common acme_mdio = {
	.name = "acme-mdio",
};
