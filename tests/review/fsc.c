/*
 * fsc - the fscrypt ioctls that review32 01's attack needs, no capability
 * required (tests/review/vcs_fscrypt_unlock.sh):
 *
 *   fsc add MNTDIR SEED   add a 64-byte key made from SEED, print its id
 *   fsc set DIR ID        encrypt the empty directory DIR with key ID
 *   fsc rm MNTDIR ID      remove key ID (lock what it opened)
 */
#include <fcntl.h>
#include <linux/fscrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void
unhex(const char *h, unsigned char *o, int n)
{
	for (int i = 0; i < n; i++)
		if (sscanf(h + 2 * i, "%2hhx", &o[i]) != 1)
			exit(2);
}

int
main(int argc, char **argv)
{
	int fd;

	if (argc < 4 || (fd = open(argv[2], O_RDONLY | O_DIRECTORY)) < 0)
		return 2;
	if (strcmp(argv[1], "add") == 0) {
		struct fscrypt_add_key_arg *a = calloc(1, sizeof(*a) + 64);

		if (a == NULL)
			return 1;
		a->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		a->raw_size = 64;
		for (int i = 0; i < 64; i++)
			a->raw[i] = (unsigned char)(i * 7 + argv[3][0]);
		if (ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, a) < 0)
			return perror("add"), 1;
		for (int i = 0; i < 16; i++)
			printf("%02x", a->key_spec.u.identifier[i]);
		printf("\n");
		return 0;
	}
	if (strcmp(argv[1], "set") == 0) {
		struct fscrypt_policy_v2 p = {
			.version = FSCRYPT_POLICY_V2,
			.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
			.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
			.flags = FSCRYPT_POLICY_FLAGS_PAD_16,
		};

		unhex(argv[3], p.master_key_identifier, 16);
		if (ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &p) < 0)
			return perror("set"), 1;
		return 0;
	}
	if (strcmp(argv[1], "rm") == 0) {
		struct fscrypt_remove_key_arg r = {0};

		r.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		unhex(argv[3], r.key_spec.u.identifier, 16);
		if (ioctl(fd, FS_IOC_REMOVE_ENCRYPTION_KEY, &r) < 0)
			return perror("rm"), 1;
		return 0;
	}
	return 2;
}
