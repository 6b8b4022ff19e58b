/*
 * community-deletion: the protocol, model-checked (Spin 6.5).
 *
 * A Promela model of the deletion protocol AS THE SQL FUNCTIONS IMPLEMENT IT
 * (db/functions/*.sql) and as src/executor.ts drives it, with the purge in
 * bounded batches (the design being built: each batch its own transaction).
 * model/README.md maps every step below to the function or executor call it
 * abstracts, lists the properties, mutants and findings, and the commands;
 * model/check.sh runs all of it.
 *
 * Granularity: one atomic step = one SQL transaction, or one external S3 or
 * Redis call. Where READ COMMITTED makes the statements of one transaction
 * observable separately, the step is split (begin_quiescing's first
 * _verify_lease before the community lock; a writer's fence decision and its
 * COMMIT; the migration's DDL and its COMMIT; stamp_key_chunk under
 * -DFINDING_RC_STAMP).
 *
 * Locks are explicit state: the community advisory lock is held SHARED by a
 * writer from its fence decision to its COMMIT (cl_sh counts the holders);
 * quiesce, fence and abort take it EXCLUSIVELY, i.e. they wait for
 * cl_sh == 0. The schema/destruction lock is held EXCLUSIVELY by a migration
 * from its DDL to its COMMIT (sl_ex); destructive steps take it SHARED, i.e.
 * they wait for !sl_ex. Row locks that serialise two engine transactions
 * (claim FOR UPDATE SKIP LOCKED, abort FOR UPDATE, append/freeze FOR NO KEY
 * UPDATE) are what make those transactions atomic steps.
 *
 * Time is abstract: the Clock expires the executor lease when its holder
 * crashed (weakly fair) or, at most MAXSTALL times, while the holder is alive
 * but stalled (its heartbeats stopped reaching the database); it expires a
 * serving-write lease at most MAXSVEXP times, at any moment — also while the
 * holder's external call is in flight.
 *
 * Configurations (one of them, or set the bounds yourself):
 *   -DCFG_FAULTS     crash + stall of executors, abort, unblock (no migration,
 *                    no serving-lease expiry)
 *   -DCFG_MIGRATION  a migration creating an unregistered table holding
 *                    communities, crash, abort, unblock, a rogue driver
 *   -DCFG_SERVING    serving-lease expiry (also mid-effect), crash, abort,
 *                    unblock, a rogue driver
 *
 * Properties (-DPROP_1 … -DPROP_6, or -DALL_PROPS), see README.md:
 *   P1 fence, P2 scope, P3 tombstone, P4 abort, P5 lease, P6 stages;
 *   liveness: -DLIVENESS, ltl "live", checked with weak fairness.
 * Mutants: -DMUTANT_…; findings: -DFINDING_… (README.md).
 */

/* ---- configurations ------------------------------------------------------ */
#if defined(CFG_FAULTS)
#define MAXCRASH   1
#define MAXSTALL   1
#define MAXSVEXP   0
#define NO_MIGRATION
#elif defined(CFG_MIGRATION)
#define MAXCRASH   1
#define MAXSTALL   0
#define MAXSVEXP   0
#define CFG_ROGUE
#elif defined(CFG_SERVING)
#define MAXCRASH   1
#define MAXSTALL   0
#define MAXSVEXP   1
#define CFG_ROGUE
#define NO_MIGRATION
#endif
/* the rogue driver (premature finishing calls) is a safety adversary; the
   liveness property is claimed for the real driver only */
#if defined(CFG_ROGUE) && !defined(LIVENESS)
#define ROGUE
#endif

/* ---- bounds ------------------------------------------------------------ */
#ifndef MAXCRASH
#define MAXCRASH   1   /* executor crashes in total (each followed by a restart) */
#endif
#ifndef MAXSTALL
#define MAXSTALL   1   /* executor lease expiries while its holder is alive */
#endif
#ifndef MAXSVEXP
#define MAXSVEXP   1   /* serving-write lease expiries */
#endif
#ifndef MAXRETRY
#define MAXRETRY   2   /* settings.max_consecutive_failures (8 in production) */
#endif
#ifndef MAXABORT
#define MAXABORT   1   /* operator abort attempts */
#endif
#ifndef MAXUNBLOCK
#define MAXUNBLOCK 1   /* operator unblocks */
#endif
#define MAXROWS    2   /* target rows per table */
/* which executor may stall: the executors are identical up to their id, so
   letting only one of them stall loses only mirror images of behaviours */
#ifndef STALLER
#define STALLER    1
#endif

/* ---- stages (community_deletion._stages()) ----------------------------- */
#define INVENTORIED        0
#define APPROVED           1
#define FENCED             2
#define DRAINED            3
#define BINDINGS_REMOVED   4
#define POSTGRES_PURGED    5
#define CACHE_PURGED       6
#define LOGICALLY_VERIFIED 7
#define RETENTION_PENDING  8
#define ABORTED            9

/* ---- communities.deletion_state ---------------------------------------- */
#define ACTIVE     0
#define QUIESCING  1
#define CFENCED    2
#define TOMBSTONE  3

/* ---- block reasons (a durable block always records one: non-zero) ------- */
#define R_CATALOG     1   /* DL7C1 catalog drift (claim or a destructive step) */
#define R_STAGE       2   /* DL2S1 wrong stage (e.g. mark_drained before the freeze) */
#define R_FROZEN      3   /* DL6F1 manifest frozen / chunk already stamped */
#define R_MANIFEST    4   /* DL6K1 the chunks do not hash to the manifest */
#define R_DUP         5   /* 23505 a chunk number appended twice */
#define R_RETRIES     6   /* the MAXRETRY-th consecutive transient failure */
#define R_STORAGE     7   /* StorageNotEmptyError in the absence proof */
#define R_ABSENCE     8   /* DL9A1 a registered table still holds target rows */
#define R_TOMBSTONE   9   /* DL8T1 not a tombstone at the fence generation */
#define R_NOT_DRAINED 10  /* DL5D1 live serving-write leases (transient) */
#define R_PENDING     11  /* DL6K2 chunks pending (transient) */

/* ---- S3 object versions (bits of objs) ---------------------------------- */
#define OBJ_A   1   /* target, written long before the fence, owned prefix 0 */
#define OBJ_B   2   /* target, written long before the fence, owned prefix 1 */
#define OBJ_W0  4   /* target, uploaded by writer 0 under a serving lease, prefix 0 */
#define OBJ_W1  8   /* target, uploaded by writer 1 under a serving lease, prefix 1 */
#define OBJ_Z   16  /* the bystander community's object (outside every owned prefix) */
#define TARGET_OBJS 15
#define WOBJ(w)        ((w) == 0 -> OBJ_W0 : OBJ_W1)
/* key chunk n holds the listing of owned prefix n (and whatever else a broken listing returned) */
#define CHUNK_OBJS(n)  ((n) == 0 -> (OBJ_A | OBJ_W0 | OBJ_Z) : (OBJ_B | OBJ_W1))
#define PREFIX_OBJS(n) (CHUNK_OBJS(n) & TARGET_OBJS)

/* ---- global state ------------------------------------------------------ */
/* community_deletion.requests (one request) */
byte stage = INVENTORIED;
bool blocked;            /* blocked_at is not null */
byte reason;             /* blocked_reason */
byte retry;              /* retry_count of the current streak */
byte lease_owner;        /* 0 = null, else the executor id */
byte lease_gen;          /* lease_generation */
bool lease_live;         /* lease_until >= now() */
byte req_fg;             /* fence_generation (0 = null) */
bool q_started;          /* quiescing_started_at is not null */
bool pre_arch;           /* pre_quiesce_archived_at is not null */
/* public.communities: the target */
byte cstate = ACTIVE;    /* deletion_state */
byte cgen = 1;           /* deletion_fence_generation */
bool archived;           /* archived_at is not null (initially null) */
/* S3 */
byte objs = 19;          /* OBJ_A | OBJ_B | OBJ_Z */
/* community_deletion.manifest_keys (2 chunks) and the frozen destructive manifest */
byte chunk[2];           /* the versions listed in chunk n */
bool chunk_app[2];       /* chunk n exists */
bool chunk_st[2];        /* chunk n stamped deleted */
bool frozen;             /* destructive_storage_manifest is not null */
byte frozen_mask;        /* the versions the frozen manifest lists */
/* host tables: T1 (child, purge order 1), T2 (parent, purge order 2), T3 (the migration's) */
byte trows[3];           /* target rows per table */
byte brows = 2;          /* the bystander's rows (one in T1, one in T2) */
bool t3_exists;          /* T3 is in the live catalog and holds communities */
bool t3_reg;             /* T3 is registered as scoped (fence attached), purge order 3 */
byte m_copy;             /* the migration's CREATE TABLE … AS SELECT: target rows it read */
/* locks */
byte cl_sh;              /* community advisory lock: SHARED holders (writers, to COMMIT) */
bool sl_ex;              /* schema/destruction lock held EXCLUSIVELY (a migration, to COMMIT) */
/* community_deletion.serving_write_leases / serving_write_grants */
bool svl_live[2];        /* writer w's lease row exists with lease_until >= now() */
byte svl_fg[2];          /* its fence generation */
bool grant[2];           /* a grant for writer w's open transaction … */
byte gfg[2];             /* … at this fence generation */
/* Redis */
bool redis_keys = true;  /* buzz:<id>:* exists */
/* environment budgets */
byte crashes;            /* executor crashes so far */
byte stalls;             /* expiries of a live holder's lease so far */
byte svexp;              /* serving-lease expiries so far */
bool holder_crashed;     /* the lease holder crashed: its lease will expire */

/* ---- ghosts (never read by the protocol) ------------------------------- */
bool inwin[2];           /* writer w verified its lease; its PUT is in flight */
bool tv[2];              /* writer w's lease expired while its PUT was in flight */
bool irrev;              /* an object deletion or a purge batch has happened */
byte fence_res;          /* the fence generation the fence transition produced */
bool cap_done;           /* the pre-quiesce archived_at was captured … */
bool cap_val;            /* … with this value */
byte t3_copied;          /* rows of T3 copied from target rows by the migration */
bool stale_delete;       /* an S3 delete completed after its executor lost the lease (allowed) */

/* ---- property switches ---------------------------------------------------- */
#if defined(ALL_PROPS) || defined(PROP_1)
#define P1(c) assert(c)
#else
#define P1(c) skip
#endif
#if defined(ALL_PROPS) || defined(PROP_2)
#define P2(c) assert(c)
#define INV2  (brows == 2 && (objs & OBJ_Z) != 0)
#else
#define P2(c) skip
#define INV2  true
#endif
#if defined(ALL_PROPS) || defined(PROP_3)
#define P3(c) assert(c)
#define INV3  (cstate != TOMBSTONE || (trows[0] == 0 && trows[1] == 0 && t3_copied == 0))
#else
#define P3(c) skip
#define INV3  true
#endif
#if defined(ALL_PROPS) || defined(PROP_4)
#define P4(c) assert(c)
#define INV4  (stage != ABORTED || (cstate == ACTIVE && !archived))
#else
#define P4(c) skip
#define INV4  true
#endif
#if defined(ALL_PROPS) || defined(PROP_5)
#define P5(c) assert(c)
#else
#define P5(c) skip
#endif
#if defined(ALL_PROPS) || defined(PROP_6)
#define P6(c) assert(c)
#define INV6  (stage < FENCED || stage > RETENTION_PENDING || (req_fg == fence_res && cgen == fence_res))
#else
#define P6(c) skip
#define INV6  true
#endif
#define INVARIANTS (INV2 && INV3 && INV4 && INV6)
/* (with -DCHECK_SPURIOUS_BLOCK) the current lease holder never finds its
   chunk already stamped by someone else — that blocks the request (DL6F1) */
#ifdef CHECK_SPURIOUS_BLOCK
#define SPURIOUS(c) assert(c)
#else
#define SPURIOUS(c) skip
#endif

/* ---- guards shared by the steps ------------------------------------------ */
/* validate_catalog(): the live tables holding communities equal the registry */
#define CATALOG_OK       (!t3_exists || t3_reg)
/* _prove_postgres_absence(): no registered table holds a target row */
#define REGISTERED_EMPTY (trows[0] == 0 && trows[1] == 0 && (!t3_reg || trows[2] == 0))
/* a serving-write lease of the community is live */
#define LIVE_SV          (svl_live[0] || svl_live[1])

/* the community lock EXCLUSIVE (quiesce, fence, abort): no shared holder */
#define CL_EXCL   (cl_sh == 0)
#ifdef MUTANT_FENCE_NO_LOCK
#define CL_EXCL_FENCE true
#else
#define CL_EXCL_FENCE CL_EXCL
#endif
#ifdef MUTANT_QUIESCE_NO_LOCK
#define CL_EXCL_QUIESCE true
#else
#define CL_EXCL_QUIESCE CL_EXCL
#endif
/* the schema/destruction lock SHARED (quiesce, fence, purge, absence proof) */
#ifdef MUTANT_NO_SCHEMA_LOCK
#define SCHEMA_SH true
#else
#define SCHEMA_SH (!sl_ex)
#endif

/* the lease token (request, executor e, lease generation g): _verify_lease
   at stage s; TOKF also _verify_lease_and_fence at fence generation fg */
#define TOK      (lease_owner == e && lease_gen == g && lease_live && !blocked)
#define TOKS(s)  (TOK && stage == (s))
#define TOKF(s)  (TOKS(s) && req_fg == fg && (cstate == CFENCED || cstate == TOMBSTONE) && cgen == fg)

/* what a purge batch verifies */
#if defined(MUTANT_BATCH_NO_LEASE_CHECK)
#define BATCH_TOKEN (stage == BINDINGS_REMOVED && req_fg == fg && cstate == CFENCED && cgen == fg)
#elif defined(MUTANT_BATCH_NO_FENCE_CHECK)
#define BATCH_TOKEN TOKS(BINDINGS_REMOVED)
#else
#define BATCH_TOKEN TOKF(BINDINGS_REMOVED)
#endif

/* what stamp_key_chunk verifies */
#ifdef MUTANT_STAMP_NO_TOKEN
#define STAMP_TOKEN (stage == DRAINED && req_fg == fg && cstate == CFENCED && cgen == fg)
#else
#define STAMP_TOKEN TOKF(DRAINED)
#endif

/* abort is possible at approved and fenced only (_stage_is_abortable) */
#ifdef MUTANT_ABORT_AT_DRAINED
#define ABORTABLE (stage == APPROVED || stage == FENCED || stage == DRAINED)
#else
#define ABORTABLE (stage == APPROVED || stage == FENCED)
#endif

/* what the write fence admits for a write without a serving grant */
#ifdef MUTANT_QUIESCING_NO_GRANT
#define PLAIN_ALLOWED (cstate == ACTIVE || cstate == QUIESCING)
#else
#define PLAIN_ALLOWED (cstate == ACTIVE)
#endif

/* _serving_lease_check(): the exact lease, unexpired, community active or quiescing at its generation */
#define SV_VALID(w) (svl_live[w] && (cstate == ACTIVE || cstate == QUIESCING) && cgen == svl_fg[w])

/* the plain writer may also write into the migration's table T3 */
#ifdef NO_MIGRATION
#define MAYWRITE_T3 false
#else
#define MAYWRITE_T3 (w == 0)
#endif

/* Every executor step starts here. Instead of the step the executor may
   crash (at most MAXCRASH times in all), or stop because its background
   heartbeat failed with DL4L1 (the lease is no longer its own); otherwise the
   step waits for its guard (a lock) and runs. */
#define BEGIN(gd) \
  if \
  :: crashes < MAXCRASH -> goto crash \
  :: !TOK && g != 0 -> printf("EV E%d heartbeat: lease lost, stops\n", e); goto idle \
  :: (gd) \
  fi

/* _advance(): exactly one stage forward, by the current lease holder; clears the retry streak */
#define ADVANCE(from, to) \
  printf("EV E%d advance -> %d\n", e, to); \
  P6(stage == (from) && (to) == (from) + 1); P5(TOK); stage = (to); retry = 0

/* the pre-quiesce capture is made once: any later capture must agree */
#define CAPTURE(v) if :: !cap_done -> cap_done = true; cap_val = (v) :: else -> P6(cap_val == (v)) fi

/* ======================================================================== */
/* Executor e: claim; per stage: verify, external effect, report; next.      */
/* ======================================================================== */
proctype Executor(byte e) {
  byte g, fg, st, c, lst, rsn, del;
  bool frz, norows;

idle:
  atomic { g = 0; fg = 0; st = 0; c = 0; lst = 0; rsn = 0; del = 0; frz = false; norows = false };
end_idle:
  /* claim(): a runnable, approved, unblocked request whose lease is free or
     expired (FOR UPDATE SKIP LOCKED); catalog validated; lease generation + 1.
     The token carries the stage and fence generation; lease_state() says
     whether the manifest is frozen (a read, folded in). */
  atomic {
#ifdef MUTANT_CLAIM_NEEDS_RELEASE
    /* a claim that never takes over an expired lease, only a released one */
    (stage >= APPROVED && stage <= LOGICALLY_VERIFIED && !blocked && !lease_live && lease_owner == 0) ->
#else
    (stage >= APPROVED && stage <= LOGICALLY_VERIFIED && !blocked && !lease_live) ->
#endif
    if
    :: CATALOG_OK ->
       lease_owner = e; lease_gen++; lease_live = true; holder_crashed = false;
       g = lease_gen; st = stage; fg = req_fg; frz = frozen;
       printf("EV E%d claim g%d at %d\n", e, g, st)
    :: else ->
       /* claim:catalog_validation failed: block with the reason, zero rows */
       blocked = true; reason = R_CATALOG; lease_owner = 0; lease_live = false;
       printf("EV E%d claim: catalog drift, blocked\n", e);
       goto idle
    fi;
    if
    :: st == APPROVED -> goto approved
    :: st == FENCED && !frz -> goto fenced
    :: st == FENCED && frz -> goto mdrained
    :: st == DRAINED -> goto drained
    :: st == BINDINGS_REMOVED -> goto purge
    :: st == POSTGRES_PURGED -> goto cachep
    :: st == CACHE_PURGED -> goto verify
    :: st == LOGICALLY_VERIFIED -> goto retention
    fi
  };

  /* ---- approved ------------------------------------------------------------ */
approved:
  /* begin_quiescing(), its first statement: _verify_lease before the community lock */
  atomic { BEGIN(true); if :: !TOKS(APPROVED) -> goto idle :: else fi };
  /* begin_quiescing(), the rest of its transaction: community lock EXCLUSIVE,
     _verify_lease AGAIN, schema lock shared, validate_catalog, capture the
     pre-quiesce archived_at once, community quiescing */
  atomic {
    BEGIN(CL_EXCL_QUIESCE && SCHEMA_SH);
#ifndef MUTANT_QUIESCE_NO_REVERIFY
    if :: !TOKS(APPROVED) -> goto idle :: else fi;
#endif
    if :: !CATALOG_OK -> rsn = R_CATALOG; goto pfail :: else fi;
    printf("EV E%d begin_quiescing\n", e);
    P5(TOK);
    if
    :: !q_started -> q_started = true; pre_arch = archived; CAPTURE(archived)
    :: else ->
#ifdef MUTANT_QUIESCE_RECAPTURE
       pre_arch = archived; CAPTURE(archived)
#else
       skip
#endif
    fi;
    cstate = QUIESCING; archived = true
  };
fence1:
  /* fence(): _verify_lease, community lock EXCLUSIVE, verify again, schema
     lock shared, catalog, quiescing (DL2S1), no live serving lease (DL5D1),
     generation + 1, community fenced, advance. (Its first _verify_lease only
     fails earlier than the second one: folded.) */
  atomic {
    BEGIN(CL_EXCL_FENCE && SCHEMA_SH);
    if :: !TOKS(APPROVED) -> goto idle :: else fi;
    if :: !CATALOG_OK -> rsn = R_CATALOG; goto pfail :: else fi;
    if :: cstate != QUIESCING -> rsn = R_STAGE; goto pfail :: else fi;
#ifndef MUTANT_FENCE_NO_DRAIN
    if :: LIVE_SV -> printf("EV E%d fence: DL5D1 live serving lease\n", e); goto fence_wait :: else fi;
#endif
    printf("EV E%d fence: generation %d\n", e, cgen + 1);
    P6(q_started && !LIVE_SV);
    cgen++; cstate = CFENCED; req_fg = cgen; fence_res = cgen;
    ADVANCE(APPROVED, FENCED); st = FENCED; fg = req_fg
  };
  goto fenced;
fence_wait:
  /* the driver retries DL5D1 until its deadline, then records a transient failure */
  if
  :: goto fence1
  :: rsn = R_NOT_DRAINED; goto tfail
  fi;

  /* ---- fenced -------------------------------------------------------------- */
fenced:
#ifdef ROGUE
  /* a driver that calls mark_drained before freezing: SQL must refuse */
  if :: goto mdrained :: true fi;
#endif
  /* clear_key_chunks(): request row lock, verify + fence, not frozen (DL6F1) */
  atomic {
    BEGIN(true);
    if :: !TOKF(FENCED) -> goto idle :: else fi;
    if :: frozen -> rsn = R_FROZEN; goto pfail :: else fi;
    P5(TOK);
    chunk_app[0] = false; chunk_app[1] = false; chunk[0] = 0; chunk[1] = 0
  };
  /* S3 ListObjectVersions of the three owned prefixes (external, read-only) */
  atomic {
    BEGIN(true);
#ifdef MUTANT_LIST_BUCKET
    lst = objs;
#else
    lst = objs & TARGET_OBJS;
#endif
    printf("EV E%d list the owned prefixes: versions %d\n", e, lst)
  };
  /* append_key_chunk(0), append_key_chunk(1): request row lock, verify +
     fence, not frozen (DL6F1), a new chunk number (23505) */
  atomic {
    BEGIN(true);
    if :: !TOKF(FENCED) -> goto idle :: else fi;
    if :: frozen -> rsn = R_FROZEN; goto pfail :: else fi;
    if :: chunk_app[0] -> rsn = R_DUP; goto pfail :: else fi;
    P5(TOK);
    chunk_app[0] = true; chunk[0] = lst & CHUNK_OBJS(0)
  };
  atomic {
    BEGIN(true);
    if :: !TOKF(FENCED) -> goto idle :: else fi;
    if :: frozen -> rsn = R_FROZEN; goto pfail :: else fi;
    if :: chunk_app[1] -> rsn = R_DUP; goto pfail :: else fi;
    P5(TOK);
    chunk_app[1] = true; chunk[1] = lst & CHUNK_OBJS(1)
  };
  /* freeze_destructive_manifest(): request row lock, verify + fence; a
     retried identical call is a no-op, a different one DL6K1; no live serving
     lease (DL5D1); the chunks must hash to the manifest (DL6K1) */
  atomic {
    BEGIN(true);
    if :: !TOKF(FENCED) -> goto idle :: else fi;
    if
    :: frozen ->
       if :: frozen_mask != lst -> rsn = R_MANIFEST; goto pfail :: else fi
    :: else ->
       if :: LIVE_SV -> rsn = R_NOT_DRAINED; goto tfail :: else fi;
       if :: !(chunk_app[0] && chunk_app[1] && (chunk[0] | chunk[1]) == lst) -> rsn = R_MANIFEST; goto pfail :: else fi;
       printf("EV E%d freeze the manifest: versions %d\n", e, lst);
       P5(TOK);
       frozen = true; frozen_mask = lst
    fi
  };
mdrained:
  /* mark_drained(): verify + fence, manifest frozen (DL2S1), no live serving lease (DL5D1), advance */
  atomic {
    BEGIN(true);
    if :: !TOKF(FENCED) -> goto idle :: else fi;
#ifndef MUTANT_DRAINED_WITHOUT_FREEZE
    if :: !frozen -> rsn = R_STAGE; goto pfail :: else fi;
#endif
    if :: LIVE_SV -> rsn = R_NOT_DRAINED; goto tfail :: else fi;
    P6(frozen);
    ADVANCE(FENCED, DRAINED); st = DRAINED
  };
  goto drained;

  /* ---- drained: the chunk loop ------------------------------------------------ */
drained:
  /* next_key_chunk() then verify_token() (two reads, folded): verify + fence;
     the lowest unstamped chunk, or none */
  atomic {
    BEGIN(true);
    if :: !TOKF(DRAINED) -> goto idle :: else fi;
    if
    :: !chunk_st[0] -> c = 0
    :: chunk_st[0] && !chunk_st[1] -> c = 1
    :: else -> goto mbound
    fi;
#ifdef ROGUE
    /* a driver that calls mark_bindings_removed with chunks left: SQL must refuse */
    if :: goto mbound :: true fi
#endif
  };
  /* S3 DeleteObjects of the chunk's exact versions (external). Once sent it
     completes even if the lease is lost meanwhile: the in-flight delete of a
     stale executor is ALLOWED (idempotent, inside the frozen manifest) and
     recorded in the ghost stale_delete; only its stamp is forbidden (P5). */
  atomic {
    BEGIN(true);
#ifdef MUTANT_DELETE_BY_PREFIX
    del = objs & PREFIX_OBJS(c);
#else
    del = chunk[c];
#endif
    if
    :: TOK -> printf("EV E%d delete chunk %d: versions %d\n", e, c, del)
    :: else -> printf("EV E%d delete chunk %d: versions %d (in flight, its lease is lost)\n", e, c, del)
    fi;
    P2((del & ~frozen_mask) == 0 && (del & OBJ_Z) == 0);
    if :: !TOK -> stale_delete = true :: else fi;
    if :: del != 0 -> irrev = true :: else fi;
    objs = objs & ~del
  };
#ifdef FINDING_RC_STAMP
  /* stamp_key_chunk() under READ COMMITTED, statement by statement:
     1. _verify_lease_and_fence — a plain read, no row lock … */
  atomic { BEGIN(true); if :: !TOKF(DRAINED) -> goto idle :: else -> printf("EV E%d stamp_key_chunk(%d) begins: lease verified (plain read)\n", e, c) fi };
  /* … 2. UPDATE manifest_keys SET deleted_at (its guard trigger locks the
     request FOR SHARE and checks stage drained + frozen only), checkpoint.
     A claim by another executor can commit between 1 and 2. (A lease that
     merely expired in between is not a violation: the SQL compares
     lease_until with now(), the transaction's start; so P5 asks here only
     that nobody else took the lease over.) */
  atomic {
    if :: !(stage == DRAINED && frozen) -> goto idle :: else fi;
    if :: chunk_st[c] -> printf("EV E%d stamp chunk %d: DL6F1 already stamped\n", e, c); SPURIOUS(!TOK); rsn = R_FROZEN; goto pfail :: else fi;
    if
    :: lease_owner == e && lease_gen == g -> printf("EV E%d stamp chunk %d\n", e, c)
    :: else -> printf("EV E%d stamp chunk %d AFTER E%d TOOK THE LEASE OVER\n", e, c, lease_owner)
    fi;
    P3((chunk[c] & objs) == 0);
    P5(lease_owner == e && lease_gen == g && !blocked);
    chunk_st[c] = true
  };
#else
  /* stamp_key_chunk(): verify + fence, the chunk not yet stamped (DL6F1), stamp + checkpoint */
  atomic {
    BEGIN(true);
    if :: !STAMP_TOKEN -> goto idle :: else fi;
    if :: chunk_st[c] -> printf("EV E%d stamp chunk %d: DL6F1 already stamped\n", e, c); SPURIOUS(!TOK); rsn = R_FROZEN; goto pfail :: else fi;
    if
    :: TOK -> printf("EV E%d stamp chunk %d\n", e, c)
    :: else -> printf("EV E%d stamp chunk %d WITH A STALE LEASE\n", e, c)
    fi;
    P3((chunk[c] & objs) == 0);
    P5(TOK);
    chunk_st[c] = true
  };
#endif
  goto drained;
mbound:
  /* mark_bindings_removed(): verify + fence, frozen, every chunk stamped (DL6K2), advance */
  atomic {
    BEGIN(true);
    if :: !TOKF(DRAINED) -> goto idle :: else fi;
    if :: !frozen -> rsn = R_STAGE; goto pfail :: else fi;
#ifndef MUTANT_BINDINGS_NO_STAMP_CHECK
    if :: !(chunk_st[0] && chunk_st[1]) -> rsn = R_PENDING; goto tfail :: else fi;
#endif
    P6(chunk_st[0] && chunk_st[1]);
    ADVANCE(DRAINED, BINDINGS_REMOVED); st = BINDINGS_REMOVED
  };
  goto purge;

  /* ---- bindings_removed: the batched purge --------------------------------------- */
purge:
  /* one batch, one transaction: schema lock shared, validate_catalog, lease +
     fence generation, delete ≤ 1 row of the first registered table in purge
     order that still holds target rows, checkpoint the running total */
  atomic {
    BEGIN(SCHEMA_SH);
#ifndef MUTANT_NO_CATALOG_CHECK
    if :: !CATALOG_OK -> rsn = R_CATALOG; goto pfail :: else fi;
#endif
    if :: !BATCH_TOKEN -> goto idle :: else fi;
    if
    :: trows[0] > 0 -> trows[0]--
    :: else ->
       if
       :: trows[1] > 0 -> trows[1]--
       :: else ->
          if
          :: t3_reg && trows[2] > 0 -> trows[2]--; if :: t3_copied > 0 -> t3_copied-- :: else fi
          :: else -> norows = true
          fi
       fi
    fi;
#ifdef MUTANT_PURGE_NO_WHERE
    /* a DELETE without "where community_id = target" takes the bystander's row too */
    if :: !norows && brows == 2 -> brows--; printf("EV E%d purge batch also deletes a bystander row\n", e) :: else fi;
#endif
    if
    :: !norows ->
       printf("EV E%d purge batch (target rows left: T1 %d, T2 %d, T3 %d)\n", e, trows[0], trows[1], trows[2]);
       irrev = true; P5(TOK); goto purge
    :: else
    fi
  };
  /* the final transaction: schema lock shared, validate_catalog, lease +
     fence generation, every registered table empty (else back to batches),
     tombstone (only if still fenced at fg), advance */
  atomic {
    BEGIN(SCHEMA_SH);
#ifndef MUTANT_NO_CATALOG_CHECK
    if :: !CATALOG_OK -> rsn = R_CATALOG; goto pfail :: else fi;
#endif
    if :: !TOKF(BINDINGS_REMOVED) -> goto idle :: else fi;
#ifndef MUTANT_FINAL_NO_EMPTY_CHECK
    if :: !REGISTERED_EMPTY -> norows = false; goto purge :: else fi;
#endif
    if :: !(cstate == CFENCED && cgen == fg) -> goto idle :: else fi;
    printf("EV E%d tombstone (target rows: T1 %d, T2 %d, T3 %d, chunks stamped %d %d)\n", e, trows[0], trows[1], trows[2], chunk_st[0], chunk_st[1]);
    P3(chunk_st[0] && chunk_st[1] && trows[0] == 0 && trows[1] == 0 && trows[2] == 0);
    cstate = TOMBSTONE;
    P6(REGISTERED_EMPTY);
    ADVANCE(BINDINGS_REMOVED, POSTGRES_PURGED); st = POSTGRES_PURGED
  };
  goto cachep;

  /* ---- postgres_purged -------------------------------------------------------------- */
cachep:
  /* Redis SCAN + UNLINK buzz:<id>:* (external, idempotent) */
  atomic { BEGIN(true); redis_keys = false };
  /* mark_cache_purged(): verify + fence, advance */
  atomic {
    BEGIN(true);
    if :: !TOKF(POSTGRES_PURGED) -> goto idle :: else fi;
    P6(!redis_keys);
    ADVANCE(POSTGRES_PURGED, CACHE_PURGED); st = CACHE_PURGED
  };
  goto verify;

  /* ---- cache_purged ------------------------------------------------------------------- */
verify:
  /* assertPrefixEmpty of the three owned prefixes, Redis verifyAbsence (external reads) */
  atomic {
    BEGIN(true);
    if :: (objs & TARGET_OBJS) != 0 -> rsn = R_STORAGE; printf("EV E%d storage not empty: %d\n", e, objs & TARGET_OBJS); goto pfail :: else fi
  };
  /* mark_logically_verified(): schema lock shared, catalog, verify + fence,
     _prove_postgres_absence (tombstone at fg DL8T1, registered tables empty
     DL9A1), advance. verify_postgres_absence(), which the driver calls before
     the storage checks, proves the same without advancing: subsumed. */
  atomic {
    BEGIN(SCHEMA_SH);
    if :: !CATALOG_OK -> rsn = R_CATALOG; goto pfail :: else fi;
    if :: !TOKF(CACHE_PURGED) -> goto idle :: else fi;
    if :: !(cstate == TOMBSTONE && cgen == fg) -> rsn = R_TOMBSTONE; goto pfail :: else fi;
    if :: !REGISTERED_EMPTY -> rsn = R_ABSENCE; goto pfail :: else fi;
    P6(REGISTERED_EMPTY && ((objs & TARGET_OBJS) == 0 || tv[0] || tv[1]));
    ADVANCE(CACHE_PURGED, LOGICALLY_VERIFIED); st = LOGICALLY_VERIFIED
  };
  goto retention;

  /* ---- logically_verified -------------------------------------------------------------- */
retention:
  /* mark_retention_pending(): verify + fence, advance; the lease is released */
  atomic {
    BEGIN(true);
    if :: !TOKF(LOGICALLY_VERIFIED) -> goto idle :: else fi;
    ADVANCE(LOGICALLY_VERIFIED, RETENTION_PENDING);
    lease_owner = 0; lease_live = false
  };
  goto idle;

  /* ---- failures --------------------------------------------------------------------------- */
pfail:
  /* block(): a permanent failure — the lease verified at the stage, a durable block with the reason */
  atomic {
    BEGIN(true);
    if
    :: TOKS(st) -> P5(TOK); blocked = true; reason = rsn; lease_owner = 0; lease_live = false;
       printf("EV E%d block reason %d at %d\n", e, rsn, st)
    :: else -> skip   /* DL4L1: the lease is gone; stop */
    fi
  };
  goto idle;
tfail:
  /* record_failure(): a transient failure — the lease released, the MAXRETRY-th
     consecutive failure at the stage blocks durably */
  atomic {
    BEGIN(true);
    if
    :: TOKS(st) ->
       P5(TOK); retry++;
       if :: retry >= MAXRETRY -> blocked = true; reason = R_RETRIES :: else fi;
       lease_owner = 0; lease_live = false;
       printf("EV E%d record_failure reason %d at %d (retry %d)\n", e, rsn, st, retry)
    :: else -> skip
    fi
  };
  goto idle;
crash:
  /* the process dies; its lease (if still current) will expire; it restarts idle */
  atomic {
    crashes++;
    if :: lease_owner == e && lease_gen == g && lease_live -> holder_crashed = true :: else fi;
    printf("EV E%d crash\n", e)
  };
  goto idle
}

/* ======================================================================== */
/* Writer w: a plain write (w = 0), an external effect under a serving-write */
/* lease with a guarded final write (w = 1); -DWRITERS_BOTH: each does both. */
/* ======================================================================== */
proctype Writer(byte w) {
#ifdef WRITERS_BOTH
  bool plain_done, sv_done;
#else
  bool plain_done = (w == 1), sv_done = (w == 0);
#endif
  byte t;

loop:
  if
  :: !plain_done -> plain_done = true; goto plain
  :: !sv_done -> sv_done = true; goto serving
  :: else -> goto wend
  fi;

plain:
  /* INSERT of a target row into T(w+1) — or, once the migration created it,
     into T3. A registered table carries the write fence: the statement-level
     trigger takes the community lock SHARED (held to COMMIT), then decides in
     a fresh snapshot; a refusal (55000) rolls the transaction back. An
     unregistered T3 carries no fence: nothing stops the row. */
  atomic {
    if
    :: t = w
    :: t3_exists && MAYWRITE_T3 -> t = 2
    fi;
    if
    :: t == 2 && !t3_reg ->
       if :: trows[2] < MAXROWS -> trows[2]++ :: else fi;
       printf("EV W%d insert into unregistered T3\n", w);
       goto loop
    :: else
    fi;
    cl_sh++;
    if
    :: PLAIN_ALLOWED -> printf("EV W%d write admitted by the fence (community state %d), not yet committed\n", w, cstate)
    :: else -> cl_sh--; printf("EV W%d write refused (55000)\n", w); goto loop
    fi
  };
  /* COMMIT */
  atomic {
    printf("EV W%d write committed (community state %d)\n", w, cstate);
    P1(cstate == ACTIVE);
    if :: trows[t] < MAXROWS -> trows[t]++ :: else fi;
    cl_sh--
  };
  goto loop;

serving:
  /* acquire_serving_lease(): community lock SHARED, active only (DL5S1) */
  atomic {
    if
    :: cstate == ACTIVE -> svl_live[w] = true; svl_fg[w] = cgen; printf("EV W%d serving lease acquired\n", w)
    :: else -> printf("EV W%d serving lease denied\n", w); goto loop
    fi
  };
  /* renew_serving_lease() (the effect's heartbeat), then verify_serving_lease()
     right before the external call: two checks of the same exact lease
     (active or quiescing at its fence generation, unexpired), folded */
  atomic {
    if
    :: !SV_VALID(w) -> printf("EV W%d serving lease no longer valid (DL5S1)\n", w); goto sv_release
    :: else -> inwin[w] = true; printf("EV W%d serving lease verified, PUT sent\n", w)
    fi
  };
  /* the external effect: S3 PUT of a new object version under the target's prefix */
  atomic {
    if
    :: svl_live[w] -> printf("EV W%d PUT object %d (community state %d)\n", w, WOBJ(w), cstate)
    :: else -> printf("EV W%d PUT object %d (community state %d, its lease expired in flight)\n", w, WOBJ(w), cstate)
    fi;
#ifdef FINDING_LEASE_TIMING
    /* without the lease timing assumption: the worst case, a version written
       after the request completed, which nothing will ever look for */
    P1(stage != RETENTION_PENDING);
#else
    P1(cstate == ACTIVE || cstate == QUIESCING || tv[w]);
#endif
    objs = objs | WOBJ(w); inwin[w] = false
  };
  /* guard_serving_write() and the final INSERT, in one transaction: the
     community lock SHARED (held to COMMIT), the exact lease verified (DL5S1),
     a grant for this transaction at the lease's fence generation; the write
     fence admits the row (active, or quiescing with the grant at the
     community's current generation) */
  atomic {
    cl_sh++;
    if :: !SV_VALID(w) -> cl_sh--; printf("EV W%d guard refused (DL5S1)\n", w); goto sv_release :: else fi;
    grant[w] = true; gfg[w] = svl_fg[w];
    if
    :: !(cstate == ACTIVE || (cstate == QUIESCING && gfg[w] == cgen)) ->
       grant[w] = false; gfg[w] = 0; cl_sh--; printf("EV W%d guarded write refused (55000)\n", w); goto sv_release
    :: else -> printf("EV W%d guarded write admitted (community state %d), not yet committed\n", w, cstate)
    fi
  };
  /* COMMIT */
  atomic {
    printf("EV W%d guarded write committed (community state %d)\n", w, cstate);
    P1(cstate == ACTIVE || (cstate == QUIESCING && grant[w] && gfg[w] == cgen));
    if :: trows[w] < MAXROWS -> trows[w]++ :: else fi;
    grant[w] = false; gfg[w] = 0; cl_sh--
  };
sv_release:
  /* release_serving_lease() (a stale release is a harmless false) */
  atomic { svl_live[w] = false; svl_fg[w] = 0; inwin[w] = false; printf("EV W%d serving lease released\n", w) };
  goto loop;
wend:
  skip
}

/* ======================================================================== */
/* The operator: approve; then abort and unblock (bounded).                  */
/* ======================================================================== */
active proctype Operator() {
  byte aborts, unblocks;

  /* approve(): a second operator approves the exact frozen digest */
  atomic { stage == INVENTORIED -> stage = APPROVED; printf("EV operator approve\n") };
end_op:
  do
  /* abort(): community lock EXCLUSIVE first, then the request row FOR UPDATE */
  :: atomic {
       (aborts < MAXABORT && CL_EXCL) ->
       aborts++;
       if
       :: stage == ABORTED || stage == RETENTION_PENDING -> skip   /* DL2T1 */
       :: else ->
          if
          :: !ABORTABLE -> printf("EV operator abort refused at %d\n", stage)   /* DL2S1 */
          :: else ->
             if
             :: LIVE_SV -> printf("EV operator abort refused: live serving lease\n")  /* DL5D1 */
             :: else ->
                printf("EV operator abort at stage %d\n", stage);
                P4(!irrev);
                cstate = ACTIVE; cgen++;
                if :: q_started -> archived = pre_arch :: else fi;
                stage = ABORTED; req_fg = cgen;
                lease_owner = 0; lease_live = false; lease_gen++;
                blocked = false; reason = 0; retry = 0
             fi
          fi
       fi
     }
  /* unblock(): blocked, not terminal, no live executor lease (DL4L2) */
  :: atomic {
       (unblocks < MAXUNBLOCK && blocked) ->
       unblocks++;
       if
       :: stage != ABORTED && stage != RETENTION_PENDING && !lease_live ->
          blocked = false; reason = 0; retry = 0; lease_owner = 0;
          printf("EV operator unblock\n")
       :: else -> skip
       fi
     }
  :: break
  od
}

/* ======================================================================== */
/* A migration: DDL creating a table that holds communities, then resolving. */
/* ======================================================================== */
#ifndef NO_MIGRATION
active proctype Migration() {
  /* CREATE TABLE t3 AS SELECT … FROM t1 (an archive, say): the DDL event
     trigger takes the schema/destruction lock EXCLUSIVELY (held to COMMIT);
     the copy reads T1's target rows */
  atomic {
    !sl_ex -> sl_ex = true; m_copy = (trows[0] > 0 -> 1 : 0);
    printf("EV migration: DDL begins (schema lock EXCLUSIVE), its copy reads %d target rows of T1\n", m_copy)
  };
  /* COMMIT: an unregistered table holding communities is in the catalog */
  atomic { t3_exists = true; trows[2] = m_copy; t3_copied = m_copy; sl_ex = false; printf("EV migration: COMMIT, T3 (unregistered) holds %d target rows\n", m_copy) };
  /* resolution, another DDL transaction under the same lock: register it as
     scoped (register_scoped_table attaches the fence; purge order 3), or
     nothing (the drift stays). Dropping it is the other resolution: it only
     removes a table and its rows, which no property can object to. */
  if
  :: atomic { !sl_ex -> t3_reg = true; printf("EV migration: T3 registered\n") }
  :: skip
  fi
}
#endif

/* ======================================================================== */
/* Abstract time.                                                            */
/* ======================================================================== */
active proctype Clock() {
end_clock:
  do
  /* the executor lease expires: its holder crashed, or stalled (bounded) */
  :: atomic {
       lease_live && (holder_crashed || (stalls < MAXSTALL && lease_owner == STALLER)) ->
       if :: !holder_crashed -> stalls++ :: else fi;
       lease_live = false;
       printf("EV clock: lease of E%d expired\n", lease_owner)
     }
  /* a serving-write lease expires (also while its PUT is in flight) */
  :: atomic { svexp < MAXSVEXP && svl_live[0] -> svexp++; svl_live[0] = false; if :: inwin[0] -> tv[0] = true :: else fi; printf("EV clock: serving lease of W0 expired\n") }
  :: atomic { svexp < MAXSVEXP && svl_live[1] -> svexp++; svl_live[1] = false; if :: inwin[1] -> tv[1] = true :: else fi; printf("EV clock: serving lease of W1 expired\n") }
#ifdef LIVENESS
  /* time passes: once nothing else can move, runs go on as ticks (so a
     stuck request is an infinite run, not a deadlock, for the ltl search) */
  :: timeout -> skip
#endif
  od
}

/* the state invariants of P2, P3, P4 and P6, in every reachable state */
active proctype Monitor() {
end_monitor:
  atomic { !(INVARIANTS) -> assert(INVARIANTS) }
}

init {
  atomic {
    trows[0] = 1; trows[1] = 1; trows[2] = 0;
    run Executor(1); run Executor(2);
    run Writer(0); run Writer(1)
  }
}

#ifdef LIVENESS
/* every approved request ends retention_pending, aborted, or durably blocked with a recorded reason */
ltl live { <>[] (stage == RETENTION_PENDING || stage == ABORTED || (blocked && reason != 0)) }
#endif
