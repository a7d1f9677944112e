MemcpyHtoD,0x00007f0000000000,2048
kernel-1.traceg
