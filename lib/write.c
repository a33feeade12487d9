/* write.c - placeholder; the module lands with its issue. */
