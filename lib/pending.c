/* pending.c - the places pending a command's revert (ws/pending.h). */
#include "ws/pending.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ws__pend {
	dev_t dev;
	ino_t ino;
	char *name;
	const void *owner;
};

static struct ws__pend *ws__pend;
static size_t ws__npend;
/* Read without the lock: no place pending, no work for the loaders. */
static atomic_size_t ws__npend_any;
static pthread_mutex_t ws__pend_mu = PTHREAD_MUTEX_INITIALIZER;

void
ws_pending_add(dev_t dev, ino_t ino, const char *name, const void *owner)
{
	struct ws__pend *nv;
	char *n = strdup(name);

	if (n == NULL)
		return;
	pthread_mutex_lock(&ws__pend_mu);
	if ((nv = realloc(ws__pend, (ws__npend + 1) * sizeof(*nv))) == NULL) {
		pthread_mutex_unlock(&ws__pend_mu);
		free(n);
		return;
	}
	ws__pend = nv;
	nv[ws__npend++] = (struct ws__pend){dev, ino, n, owner};
	atomic_fetch_add(&ws__npend_any, 1);
	pthread_mutex_unlock(&ws__pend_mu);
}

void
ws_pending_drop(const void *owner)
{
	size_t k = 0, had;

	if (atomic_load(&ws__npend_any) == 0)
		return;
	pthread_mutex_lock(&ws__pend_mu);
	had = ws__npend;
	for (size_t i = 0; i < ws__npend; i++) {
		if (ws__pend[i].owner == owner)
			free(ws__pend[i].name);
		else
			ws__pend[k++] = ws__pend[i];
	}
	ws__npend = k;
	atomic_fetch_sub(&ws__npend_any, had - k);
	if (k == 0) {
		free(ws__pend);
		ws__pend = NULL;
	}
	pthread_mutex_unlock(&ws__pend_mu);
}

bool
ws_pending_has(const char *path)
{
	char buf[PATH_MAX], *save = NULL, *c;
	bool hit = false;
	int fd;

	if (atomic_load(&ws__npend_any) == 0 || strlen(path) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", path);
	/* Each directory on the way, as the open that follows finds it. */
	fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (c = strtok_r(buf, "/", &save); fd >= 0 && c != NULL && !hit;
	     c = strtok_r(NULL, "/", &save)) {
		struct stat st;
		int nfd;

		if (fstat(fd, &st) < 0)
			break;
		pthread_mutex_lock(&ws__pend_mu);
		for (size_t i = 0; i < ws__npend && !hit; i++)
			hit = ws__pend[i].dev == st.st_dev &&
			      ws__pend[i].ino == st.st_ino &&
			      strcmp(ws__pend[i].name, c) == 0;
		pthread_mutex_unlock(&ws__pend_mu);
		nfd = openat(fd, c, O_PATH | O_CLOEXEC);
		close(fd);
		fd = nfd;
	}
	if (fd >= 0)
		close(fd);
	return hit;
}
