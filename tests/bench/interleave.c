/*
 * interleave.c - run commands in interleaved rounds and print medians.
 *
 *   interleave [-r ROUNDS] [-w WARMUP] NAME CMD [NAME CMD]...
 *
 * Each round runs every CMD once, in a new shuffled order, so that a
 * change in the machine's load (other processes, the CPU's clock) falls
 * on every command alike instead of on whichever hyperfine measured
 * last.  A CMD is split at blanks ('...' and "..." group, no other shell
 * syntax); leading NAME=VALUE words set the environment.  Its standard
 * output goes to a pipe that this program drains (as a reader would:
 * GNU grep stops early when it writes to /dev/null), its standard error
 * to /dev/null.  The time is from fork to the end of both the process
 * and its output.  Prints the load average first, then per command:
 * NAME, median ms, minimum ms, runs, and the largest peak RSS in KiB
 * (wait4's ru_maxrss), tab-separated.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct cmd {
	const char *name;
	char **argv;	/* after the NAME=VALUE words */
	char **env;
	size_t nenv;
	double *ms;
	long maxrss;
};

static char **
split(const char *s, size_t *n)
{
	char **v = calloc(strlen(s) + 2, sizeof(*v));
	char *buf = malloc(strlen(s) + 1), *o = buf;

	*n = 0;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		v[(*n)++] = o;
		while (*s && *s != ' ' && *s != '\t') {
			if (*s == '\'' || *s == '"') {
				char q = *s++;

				while (*s && *s != q)
					*o++ = *s++;
				if (*s)
					s++;
			} else {
				*o++ = *s++;
			}
		}
		*o++ = '\0';
	}
	v[*n] = NULL;
	return v;
}

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double
run(struct cmd *c)
{
	static char sink[65536];
	int p[2];
	double t0, t;
	pid_t pid;
	int st;
	struct rusage ru;

	if (pipe2(p, O_CLOEXEC) < 0)
		exit(2);
	t0 = now_ms();
	pid = fork();
	if (pid == 0) {
		int dn = open("/dev/null", O_WRONLY);

		dup2(p[1], 1);
		dup2(dn, 2);
		for (size_t i = 0; i < c->nenv; i++)
			putenv(c->env[i]);
		execvp(c->argv[0], c->argv);
		_exit(127);
	}
	close(p[1]);
	while (read(p[0], sink, sizeof(sink)) > 0)
		;
	close(p[0]);
	wait4(pid, &st, 0, &ru);
	t = now_ms() - t0;
	if (ru.ru_maxrss > c->maxrss)
		c->maxrss = ru.ru_maxrss;
	return t;
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int rounds = 10, warmup = 1, opt;
	size_t n;
	struct cmd *c;
	size_t *order;
	char load[128] = "?";
	FILE *f;

	while ((opt = getopt(argc, argv, "+r:w:")) != -1) {
		if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'w')
			warmup = atoi(optarg);
		else
			return 2;
	}
	argc -= optind;
	argv += optind;
	if (argc < 2 || argc % 2 != 0 || rounds < 1) {
		fprintf(stderr, "usage: interleave [-r ROUNDS] [-w WARMUP] "
			"NAME CMD [NAME CMD]...\n");
		return 2;
	}
	n = (size_t)argc / 2;
	c = calloc(n, sizeof(*c));
	order = calloc(n, sizeof(*order));
	for (size_t i = 0; i < n; i++) {
		size_t k, e = 0;
		char **v = split(argv[2 * i + 1], &k);

		while (e < k && strchr(v[e], '=') != NULL && v[e][0] != '=' &&
		       v[e][0] != '-')
			e++;
		c[i].name = argv[2 * i];
		c[i].env = v;
		c[i].nenv = e;
		c[i].argv = v + e;
		c[i].ms = calloc((size_t)rounds, sizeof(double));
		order[i] = i;
	}
	if ((f = fopen("/proc/loadavg", "r")) != NULL) {
		if (fgets(load, sizeof(load), f) == NULL)
			strcpy(load, "?");
		load[strcspn(load, "\n")] = '\0';
		fclose(f);
	}
	printf("# load average at start: %s; %d rounds, shuffled\n", load,
	       rounds);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	for (int w = 0; w < warmup; w++)
		for (size_t i = 0; i < n; i++)
			(void)run(&c[i]);
	for (int r = 0; r < rounds; r++) {
		for (size_t i = n; i > 1; i--) {
			size_t j = (size_t)rand() % i, t = order[i - 1];

			order[i - 1] = order[j];
			order[j] = t;
		}
		for (size_t i = 0; i < n; i++)
			c[order[i]].ms[r] = run(&c[order[i]]);
	}
	for (size_t i = 0; i < n; i++) {
		double med;

		qsort(c[i].ms, (size_t)rounds, sizeof(double), dcmp);
		med = rounds % 2 ? c[i].ms[rounds / 2] :
		      (c[i].ms[rounds / 2 - 1] + c[i].ms[rounds / 2]) / 2;
		printf("%s\t%.3f\t%.3f\t%d\t%ld\n", c[i].name, med, c[i].ms[0],
		       rounds, c[i].maxrss);
	}
	return 0;
}
