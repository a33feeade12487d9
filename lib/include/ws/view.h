/*
 * ws/view.h - the view a wsrun command has of the file system
 * (lib/view.c, DESIGN.md section 2).
 *
 * real: the minimal root holds the workspace and its mounts at their real
 * paths (the historical view).  virtual: the command's "/" is the
 * workspace, each mount at its virtual prefix, the system directories
 * read-only beneath, as the file tools show it.
 *
 * How the virtual view is built, and why (see wsrun(1), VIEW): the new
 * root is a tmpfs in the command's mount namespace.  Each top-level entry
 * of the workspace is bound onto a name made in that tmpfs (never in the
 * workspace: nothing is left there, whatever happens to wsrun), the
 * system directories and the mounts beside them.  Everything below a
 * top-level entry is the workspace itself, live.  A name the command
 * makes at the top lands on the tmpfs and is copied into the workspace
 * when the command's tree is gone (ws_view_apply()); top-level entries
 * cannot be removed or renamed by the command (EBUSY: mount points).
 */
#ifndef WS_VIEW_H
#define WS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct ws_ctx;
struct ws_sandbox_plan;

enum ws_view { WS_VIEW_REAL, WS_VIEW_VIRTUAL };

/* "real" or "virtual". */
const char *ws_view_name(enum ws_view v);

/* Parse "real" or "virtual".  Errors: WS_EINVALID_ARGUMENT. */
int ws_view_parse(const char *s, enum ws_view *v);

/* A list of names (virtual paths), each with an optional reason. */
struct ws_view_names {
	char **name;
	char **why;
	size_t n;
};

/* What the view of a call was, for isolation.view. */
struct ws_view_info {
	enum ws_view view;
	bool from_paths;	/* the default, from --paths virtual */
	bool map_paths_ignored;	/* --map-paths asked in the virtual view */
	struct ws_view_names system;	/* the sandbox's names at "/" */
	struct ws_view_names shadowed;	/* workspace entries hidden by them */
	struct ws_view_names unplaced;	/* grants or mounts not shown */
	struct ws_view_names applied;	/* new top-level names copied in */
	struct ws_view_names lost;	/* new top-level names not copied */
	struct ws_view_names skeleton;	/* every name the root was built with */
	struct ws_view_names links;	/* top-level symlinks, copied to the root */
	struct ws_view_names masked;	/* the policy refuses reading: emptied */
	struct ws_view_names read_only;	/* the policy refuses writing */
	struct ws_view_names no_exec;	/* the policy refuses executing */
	/* An exec rule outside the anchors, which the view cannot bind:
	 * its pattern, with the rule as the reason (said, not applied). */
	struct ws_view_names exec_outside;
	/* The root's directory as the command found it (ws_view_recv_root()),
	 * for ws_view_apply() to pass over a root nothing changed. */
	bool root_known;
	long long root_size;
	struct timespec root_mtime, root_ctime;
};

/*
 * Whether the virtual path vpath (in the workspace, not in a mount) is
 * hidden in a command's virtual view by a system name at "/" (its first
 * component: "etc", "tmp", ... where the host has it); that name in top.
 */
bool ws_view_shadowed(const char *vpath, char *top, size_t len);

/*
 * The policy's view, in both views (before ws_view_plan()): the entries
 * of the workspace and its mounts that a rule of the policy refuses to
 * read (deny or approve; not the "no rule matched" default) become
 * masks, the files it refuses to write read-only binds, found by a walk
 * of at most WS_VIEW_MAX_WALK entries below each anchor a refusing rule
 * may reach (ws_policy_may_refuse_below()), WS_VIEW_MAX_DEPTH levels
 * deep, binding WS_VIEW_MAX_BINDS entries at most (fewer where the
 * descriptor limit leaves fewer; its soft limit is raised to the hard
 * one for them, ws__nofile_raise()).  can_mask: a mount namespace will
 * apply them.  Errors: WS_ESANDBOX_UNAVAILABLE (the walk would go beyond
 * one of its bounds, or meets a name too long for it, or there is
 * something to mask and no mount namespace), WS_ENOMEM.
 */
int ws_view_policy(struct ws_ctx *ws, struct ws_sandbox_plan *p,
		   struct ws_view_info *vi, bool can_mask);

/*
 * A million entries: about 2 us each where a deny rule for every .env
 * file must be matched against every name (wsrun(1) gives the figures);
 * far past a node_modules, and a walk past it still refuses the call.
 */
#define WS_VIEW_MAX_WALK 1000000
/* The deepest directory level that walk reads (the anchor is level 0;
 * a directory below this level makes the walk fail). */
#define WS_VIEW_MAX_DEPTH 128

/* The most top-level workspace entries bound (a mount each). */
#define WS_VIEW_MAX_TOP 4096

/*
 * The most entries the policy's walk binds one by one (the files a glob
 * of an exec or write rule names, every ".sh" file; masked or read-only
 * entries): each is a mount in the command's namespace, two descriptors
 * in wsrun until the child binds it (its own and its tree's), and about
 * 65 us of every call (review31 04: 5,000 binds, +0.32 s), so 4,096 of
 * them cost a quarter of a second a call.  Past it, or past what the
 * descriptor limit leaves, the call is refused naming the rule and how
 * many entries it matched: a rule on their directory, all below it, binds
 * it whole, in one mount.
 */
#define WS_VIEW_MAX_BINDS 4096

/*
 * In the parent, after ws_sandbox_plan_fill() and the grants: turn the
 * plan into the virtual view's (targets at virtual paths, one bind per
 * top-level workspace entry, system names winning over workspace names),
 * and fill vi's system, shadowed, unplaced and skeleton lists.  Errors:
 * WS_ESANDBOX_UNAVAILABLE (too many top-level entries), WS_ENOMEM.
 */
int ws_view_plan(struct ws_ctx *ws, struct ws_sandbox_plan *p,
		 struct ws_view_info *vi);

/*
 * After the command's tree is gone: copy the names the command made at
 * the top of the virtual root (root_fd: a descriptor of that tmpfs,
 * passed by the namespace init) into the workspace, each entry whole or
 * not at all, never over an existing entry; fill vi->applied and
 * vi->lost.  Returns 0 (what could not be copied is in vi->lost).
 */
int ws_view_apply(struct ws_ctx *ws, int root_fd, struct ws_view_info *vi);

/*
 * The namespace init sends a descriptor of its new root (after the pivot)
 * on sock, a datagram socket, before the command starts, with the root
 * directory's size and times then; wsrun receives both when the
 * command's tree is gone (-1: none was sent; the size and times go to
 * vi->root_*).  The send uses no heap (init may share wsrun's memory).
 */
int ws_view_send_root(int sock);
int ws_view_recv_root(int sock, struct ws_view_info *vi);

/* Free what vi holds. */
void ws_view_info_free(struct ws_view_info *vi);

#endif
