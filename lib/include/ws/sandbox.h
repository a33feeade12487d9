/*
 * ws/sandbox.h - the kernel confinement layers of wsrun: probing what the
 * kernel offers, and applying each layer in the process that is about to
 * exec the command (lib/sandbox.c).
 *
 * Layers: Landlock (filesystem rules, TCP rules from ABI 4, scoped
 * abstract UNIX sockets and signals from ABI 6), a seccomp filter
 * (socket families other than AF_UNIX, io_uring, ptrace, keyctl, bpf,
 * userfaultfd, perf_event_open, mount and namespace calls), dropping
 * every capability, and namespaces (as root, or inside a user namespace):
 * mount (a minimal root), PID (the tree dies with its init), network
 * (loopback only).  Guarded paths are
 * read-only binds in the mount namespace.  Every layer is reported with
 * whether it was enforced and why not.
 */
#ifndef WS_SANDBOX_H
#define WS_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

struct ws_ctx;

/* The layers, as bits for ws_run_opts.disable and in reports. */
enum ws_layer {
	WS_LAYER_LANDLOCK,
	WS_LAYER_SECCOMP,
	WS_LAYER_CAPS,	  /* capabilities dropped */
	WS_LAYER_MOUNTNS, /* minimal root in a mount namespace */
	WS_LAYER_PIDNS,	  /* PID namespace under a small init */
	WS_LAYER_NETNS,	  /* network namespace, loopback only */
	WS_LAYER_CGROUP,  /* cgroup v2 child, killed with cgroup.kill */
	WS_LAYER_GUARDS,  /* guarded paths read-only */
	WS__LAYER_COUNT
};

enum ws_isolate { WS_ISOLATE_AUTO, WS_ISOLATE_STRICT, WS_ISOLATE_NONE };

/* In ws_layers_parse() bits: no user namespace (root is unaffected). */
#define WS_LAYERS_USERNS_BIT (1U << 31)
/*
 * In ws_layers_parse() bits ("userns-refused"): the namespaces are
 * planned, but the clone that makes them fails with EPERM, as where the
 * kernel refuses a user namespace the probe took for granted (a chroot).
 */
#define WS_LAYERS_USERNS_REFUSED_BIT (1U << 30)

/* One layer's state. */
struct ws_layer_state {
	bool available; /* the kernel offers it (probe) */
	bool planned;	/* it was to be applied */
	bool enforced;	/* it was applied */
	char why[160];	/* why it is not enforced (or details) */
};

/* What a call enforced. */
struct ws_isolation {
	enum ws_isolate mode;
	int landlock_abi;	/* 0: no Landlock */
	bool net_allowed;	/* --net */
	bool net_enforced;	/* network was off, by what net_how says */
	char net_how[64];	/* "seccomp+netns+landlock", ... */
	bool unix_outside_blocked; /* host UNIX sockets unreachable */
	bool unix_inside_blocked;  /* a host process's UNIX socket in the
				      workspace or a mount, too */
	long long tmp_size;	/* bytes the private /tmp holds; 0: not bounded */
	char tmp_how[128];	/* where the private /tmp and HOME are */
	bool userns;		/* namespaces are made in a user namespace */
	char unix_how[64];
	struct ws_layer_state layer[WS__LAYER_COUNT];
};

/* The name of a layer ("landlock", "mountns", ...). */
const char *ws_layer_name(enum ws_layer l);

/* The name of an isolation mode, and parsing one. */
const char *ws_isolate_name(enum ws_isolate m);
int ws_isolate_parse(const char *s, enum ws_isolate *m);

/*
 * Parse a comma-separated list of layer names (the test-only
 * WS_RUN_DISABLE variable: "mountns,landlock", "all", also "userns" for
 * every namespace, "userns-refused" for a namespace clone refused) into
 * WS_LAYER_* bits.  Errors: WS_EINVALID_ARGUMENT.
 */
int ws_layers_parse(const char *list, unsigned *bits);

/*
 * Probe the kernel: which layers are available to this process (cheap
 * checks; with deep, a throwaway child tries the namespaces for real).
 * disable forces layers off.  Fills iso->layer[].available and why.
 */
void ws_sandbox_probe(struct ws_isolation *iso, unsigned disable, bool deep);

/* The best Landlock ABI the kernel offers (0: none). */
int ws_landlock_abi(void);

/*
 * The plan the command's process applies before exec.  Descriptors are
 * opened by the parent (resolved in the workspace or by the system's
 * paths) and only used, never re-resolved from strings, by the child.
 */
enum { WS_SANDBOX_NESTED_BELOW = 1, WS_SANDBOX_NESTED_SELF = 2 };

struct ws_sandbox_path {
	int fd;		/* O_PATH descriptor */
	char *path;	/* its real path (for the mount namespace) */
	bool write;	/* read-write (else read and execute) */
	bool file;	/* not a directory */
	bool list_only;	/* Landlock: list the directory, nothing beneath */
	bool noexec;	/* Landlock: no execute (a policy's read grant) */
	bool asked;	/* named by the caller (--allow-read, --allow-write) */
	bool sys;	/* a system directory or device node: the same in
			   every call (ws_sandbox_mount_system()) */
	int tree;	/* detached mount of it (mount namespace), or -1 */
	/*
	 * The virtual view (lib/view.c): where it is bound in the new root
	 * (NULL: at path), whether it is only a Landlock rule (not bound:
	 * the workspace itself, a grant that has no place), only a bind (no
	 * Landlock rule of its own: a top-level workspace entry, covered by
	 * the workspace's), and whether it is a symlink copied as one.
	 */
	char *target;
	bool unbound;
	bool mount_only;
	bool link_copy;
	/*
	 * The workspace's tree, copied once (nosymfollow) and attached
	 * where the namespace init can name it (stage), from which each
	 * top-level entry (from_stage; fd -1: the parent only read its name
	 * and kind from the directory) is bound by name, following no link,
	 * onto a mount point made by name on the new root (a kind changed
	 * meanwhile fails the bind); the stage goes with the old root
	 * before the command runs.  One tree copied in the parent instead
	 * of one per entry.
	 */
	bool stage;
	bool from_stage;
	/*
	 * A top-level entry that holds a host mount (a mount below the
	 * workspace), set by the namespace init from the mount table:
	 * WS_SANDBOX_NESTED_BELOW beneath the entry, WS_SANDBOX_NESTED_SELF
	 * the entry is one.  Such an entry is bound after the new root's
	 * nosymfollow is cleared, so that its mounts keep their own flags.
	 */
	unsigned char nested;
	/* The policy's view: masked (an empty file or directory bound over
	 * it), for a guard entry whose reading the policy refuses. */
	bool mask;
	/* A policy guard (masked or read-only): the directories above it,
	 * up to their mount, are pinned (bound onto themselves) so that
	 * the command cannot rename them away from the rule's path. */
	bool pin;
};

struct ws_sandbox_plan {
	struct ws_sandbox_path *paths;
	size_t npaths;
	size_t cap;
	struct ws_sandbox_path *guards; /* existing guarded entries */
	size_t nguards;
	/*
	 * Guarded entries on which a later call's boundary depends (the
	 * entries the root's or a mount's spelling passes through, wstools'
	 * own configuration and policy) inside a writable anchor, plus
	 * read-only mounts inside one: only a mount namespace keeps them as
	 * they are (Landlock cannot protect one entry of a writable tree).
	 */
	size_t nboundary;
	/*
	 * HOME's persistence places (and the entries on the way to one,
	 * ~/.config -> WS/dotfiles) that exist in a writable anchor: with a
	 * mount namespace each is bound read-only; without one the command
	 * could change them and nothing would undo it (the revert after the
	 * run removes only what it created), so the fallback refuses.
	 * held_place is the first one's real path (the plan frees it).
	 */
	size_t nheld_places;
	char *held_place;
	size_t gcap;
	bool net;	  /* network allowed */
	/*
	 * Network by name (ws/netproxy.h): TCP sockets may be made and may
	 * connect to WS_NETPROXY_PORT only (in a namespace holding only
	 * loopback), and loopback is brought up.
	 */
	bool net_proxy;
	bool use_proc;	  /* a fresh /proc is mounted (grant read) */
	bool deny_unix_connect; /* no mount namespace hides host sockets */
	int landlock_abi; /* 0: no Landlock */
	bool seccomp, caps, mountns, netns;
	bool mask_blocked; /* mask the built-in list's programs */
	bool userns;	  /* in a user namespace: trees made by the child */
	int cwd_fd;	  /* O_PATH of the working directory (host view) */
	char *cwd_real;
	int priv_fd;	  /* the private HOME/TMPDIR directory, or -1 */
	char *priv_real;  /* its path; with priv_fd -1, made in the
			     minimal root's private /tmp */
	long long tmp_size; /* bytes of the minimal root's private /tmp */
	/*
	 * The virtual view: the new root stays writable (a tmpfs whose new
	 * top-level names wsrun copies into the workspace afterwards, see
	 * lib/view.c), /proc is read-only, and cwd_in is the working
	 * directory's path in the new root ("/": its root, no inode to
	 * compare).  NULL cwd_in: cwd_real.
	 */
	bool virt;
	char *cwd_in;
	/* ws_sandbox_mount_base() was done already, for this plan's view
	 * and tmp_size, by an init made ahead of its call (lib/run.c). */
	bool base_ready;
	/* And ws_sandbox_mount_system(), for this plan's mask_blocked: its
	 * sys paths are bound and /etc's secrets masked already. */
	bool base_sys;
	/*
	 * HOME's persistence places as ws_sandbox_plan_fill() resolved them
	 * (ws_ctx_home_places(), home_done set): the call's snapshot of what
	 * to revert takes the same resolution rather than walk HOME again
	 * (lib/run.c).  Freed by ws_sandbox_plan_free().
	 */
	struct ws_home_place *home_places;
	size_t nhome_places;
	bool home_done;
	/*
	 * ws_sandbox_plan_fill() found the root anchor in a persistence
	 * place (a workspace of ~/.local/bin, or one that is a directory
	 * on PATH): read-only as a whole.  ws_view_plan() takes it rather
	 * than resolve the bases again.
	 */
	bool root_in_place;
};

/* Order the plan's paths deeper after shallower (stable), so that in the
 * mount namespace a bind lands on top of the ones it lies in.  Done by
 * ws_sandbox_plan_fill(); again by whoever adds paths after it. */
void ws_sandbox_plan_sort(struct ws_sandbox_plan *p);

/*
 * Add a guard to a plan (fd is taken over): read-only, or with mask an
 * empty file or directory over it (the policy's view, lib/view.c).
 * Errors: WS_ENOMEM.
 */
int ws_sandbox_plan_add_guard(struct ws_sandbox_plan *p, int fd,
			      const char *path, bool mask);

/*
 * Mask path (fd taken over) with an empty directory, read-only: an
 * existing guard of that path becomes the mask, the guards below it
 * are no longer bound.  Errors: WS_ENOMEM.
 */
int ws_sandbox_plan_add_mask(struct ws_sandbox_plan *p, int fd,
			     const char *path);

/* Add a path to a plan (fd is taken over).  Errors: WS_ENOMEM. */
int ws_sandbox_plan_add(struct ws_sandbox_plan *p, int fd, const char *path,
			bool write, bool file);

/*
 * Fill a plan's paths for workspace ws: the system directories, the
 * device nodes, the workspace and its mounts, the private directory,
 * allow_read/allow_write, and the existing guarded entries.  With
 * entry_by_entry, /etc is granted entry by entry without its secrets
 * (used when no mount namespace can mask them).
 */
int ws_sandbox_plan_fill(struct ws_sandbox_plan *p, struct ws_ctx *ws,
			 const char *const *allow_read, size_t nread,
			 const char *const *allow_write, size_t nwrite,
			 bool entry_by_entry);

/*
 * In the parent, before the clone: make a detached copy of every path's
 * mount tree (read-only unless it is writable), so that the child can
 * attach it in its new mount namespace -- a descriptor opened here cannot
 * be cloned from there.  Errors: WS_ESANDBOX_UNAVAILABLE.
 */
int ws_sandbox_plan_trees(struct ws_sandbox_plan *p);

/* Close and free a plan. */
void ws_sandbox_plan_free(struct ws_sandbox_plan *p);

/*
 * In the child, in a new mount namespace (and PID namespace, for /proc):
 * build the minimal root from the plan and pivot into it.  *cwd_fd gets a
 * descriptor of the working directory in the new root (checked to be the
 * same inode).  Returns 0 or -errno with msg filled.  Async-signal-safe
 * enough for a child of a single-threaded parent.
 */
int ws_sandbox_mount(struct ws_sandbox_plan *p, int *cwd_fd, char *msg,
		     size_t msglen);

/*
 * The part of ws_sandbox_mount() that depends on no call, only on the
 * view (virt) and the private /tmp's size: "/" made private (rprivate),
 * the new root's tmpfs, the private /tmp with HOME and TMPDIR under
 * priv_real (NULL: not there), the masks' empty sources, /dev, a fresh
 * /proc.  In the new mount and PID namespaces; holds no descriptor when
 * it returns.  0 or -errno with msg filled.
 */
int ws_sandbox_mount_base(bool rprivate, bool virt, long long tmp_size,
			  const char *priv_real, char *msg, size_t msglen);

/*
 * The part of ws_sandbox_mount() that depends on no call and no
 * workspace, only on the system and on mask_blocked (a policy without
 * command rules): after ws_sandbox_mount_base(), the system directories
 * and device nodes bound read-only (the nodes read-write) from this
 * namespace's copy of the host's tree, /etc's secrets masked, and the
 * built-in blocked programs with mask_blocked; the new root stays
 * writable, as ws_sandbox_mount() wants it.  An init made ahead of its
 * call (lib/run.c) does it between calls.  Returns 1 when done, 0 when
 * declined (a host mount is nosymfollow, which ws_sandbox_mount() clears
 * on the whole new root: then the call binds them after that), or
 * -errno with msg filled.  Uses no heap.
 */
int ws_sandbox_mount_system(bool mask_blocked, char *msg, size_t msglen);

/*
 * Whether what ws_sandbox_mount_system() made serves plan p: no bind of
 * p but its sys paths lands in a system directory or /dev (a workspace
 * at /opt/x, an --allow-write of /usr/local would otherwise cover the
 * masks made before it, or the order of binds would change).
 */
bool ws_sandbox_plan_system_apart(const struct ws_sandbox_plan *p);

/* Bring the loopback interface up (in a new network namespace). */
int ws_sandbox_loopback_up(void);

/* Apply Landlock per plan: 0 or -errno, msg filled. */
int ws_sandbox_landlock(const struct ws_sandbox_plan *p, char *msg,
			size_t msglen);

/* Drop every capability (bounding, ambient, effective, permitted). */
int ws_sandbox_drop_caps(char *msg, size_t msglen);

/* Install the seccomp filter per plan: 0 or -errno, msg filled. */
int ws_sandbox_seccomp(const struct ws_sandbox_plan *p, char *msg,
		       size_t msglen);

#endif
