/* wsls.c - placeholder until the file tools issue lands. */
int main(void) { return 2; }
