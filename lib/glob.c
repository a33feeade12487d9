/* glob.c - placeholder; the module lands with its issue. */
