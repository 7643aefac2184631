		__cpu_name[cpu] = "MIPS 99Kc";
