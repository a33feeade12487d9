/*
 * ws/grant.h - the directories a policy's rules grant to a wsrun command
 * (lib/grant.c): each candidate of ws_policy_grants() weighed against the
 * call's boundary and the file system, opened once without following any
 * symlink, and that same descriptor handed to Landlock and the mount
 * namespace.
 */
#ifndef WS_GRANT_H
#define WS_GRANT_H

#include <stddef.h>

#include "ws/policy.h"

struct ws_ctx;
struct ws_sandbox_plan;
struct ws_sandbox_path;

/*
 * Weigh the candidates v[0..n) that the policy left standing for a call
 * in ws.  Never granted (refused, why says why): /, /etc, /proc, /sys,
 * /dev, /run, /tmp, /var/tmp, /var/run, /boot, /usr, /bin, /sbin, /lib*
 * and what is in or above them, /opt and what is above it, the caller's
 * HOME and what is above it, a directory that holds the workspace, a
 * mount or priv (the call's private HOME/TMPDIR, may be NULL), a write
 * grant that holds a guarded entry (ws_guarded_list()) or lies in a
 * guarded directory, one that holds a mount point (a chroot's bind of
 * /proc would come with it), and a directory
 * that cannot be opened from "/" with no symlink in any component
 * (openat2 RESOLVE_NO_SYMLINKS), or whose descriptor turns out to be one
 * of the directories above by another path, or one that holds or is in
 * the workspace or a mount by another path, a bind of part of one in the
 * other (a write grant: wstools' own places and the guarded entries'
 * directories too; where a bind lies in its file system is told from
 * mountinfo's root of each mount).  Skipped with a note: one
 * inside the workspace, a mount or priv (nothing to add), one that does
 * not exist, one that is the very directory the caller named in ro (an
 * asked path: the caller's --allow-read or --allow-write decides).  A write grant that holds, or may hold, what is granted
 * read-only becomes read: the read-only paths the caller asked for in
 * ro[0..nro) (the plan's paths with asked set: --allow-read's
 * descriptors; the system's paths, never in a grant, are passed over), and
 * another rule's read grant.  That is decided on the descriptors: walking
 * up by ".." on the grant's mount (not by st_dev: an overlay's file can
 * have a device of its own), placing a path on another mount of the
 * grant's file system by mountinfo, and failing closed for a file with
 * several links or what cannot be placed.  A path the caller asked for
 * (read or write) whose name passes through a write grant and is not
 * spelled without a symlink, yet does not lie surely beneath it, is one
 * the command could have re-pointed: the call is refused
 * (WS_EPOLICY_DENIED).  Granted ones keep their descriptor in fd.
 * Errors: WS_ENOMEM, WS_EPOLICY_DENIED.
 */
int ws_grants_check(struct ws_ctx *ws, struct ws_policy_grant *v, size_t n,
		    const char *priv, const struct ws_sandbox_path *ro,
		    size_t nro);

/*
 * The names the caller gave (p[0..n) with asked set: --allow-read,
 * --allow-write) that pass through a read-write anchor of ws (the
 * workspace, a read-write mount) by a symlink and lead outside it: the
 * command could have planted or re-pointed that symlink at an earlier
 * call, and the name would grant whatever it chose.  Errors:
 * WS_EPOLICY_DENIED (the first such name), WS_EIO_ERROR.
 */
int ws_grants_check_names(struct ws_ctx *ws, const struct ws_sandbox_path *p,
			  size_t n);

/*
 * For wsrun --probe: the candidates of ws's policy, checked as a call
 * would check them (without its --allow-read and private directory).
 * *v (free with ws_policy_grants_free()) gets *n items.  Errors: WS_ENOMEM.
 */
int ws_grants_probe(struct ws_ctx *ws, struct ws_policy_grant **v, size_t *n);

/* Take back every grant of v, saying why (the call cannot afford them). */
void ws_grants_revoke(struct ws_policy_grant *v, size_t n, const char *why);

/* The number of granted ones in v. */
size_t ws_grants_count(const struct ws_policy_grant *v, size_t n);

/*
 * Add the granted ones to plan, read-write or read (without execute
 * unless the rule allows exec); their descriptors are taken over.
 * Errors: WS_ENOMEM.
 */
int ws_grants_add(struct ws_policy_grant *v, size_t n,
		  struct ws_sandbox_plan *plan);

#endif
