// a Bluetooth driver of the test tree: the controllers it knows and a firmware name
static const struct id_table acme_bt_table[] = {
	{ .chip = ACME_BCM9999C5, .name = "BCM9999C5" },
	{ .fw_name = "rtl_bt/rtl9999bu_fw.bin" },
};
