/*
 * community_deletion_fence — the native fast path of the community write fence.
 *
 * The write fence's rules live in PL/pgSQL (db/functions/
 * tg_scoped_table__enforce_write_fence.sql and
 * tg_scoped_table__refuse_write_early.sql). This library only answers the one
 * question every serving write asks — "is this statement's single community
 * active?" — without the cost of a PL/pgSQL call, and hands EVERY other case
 * to those PL/pgSQL functions unchanged, with the same trigger context:
 *
 *   cd_fence_statement  (tg_scoped_table__enforce_write_fence when native)
 *     AFTER … FOR EACH STATEMENT with transition tables. Reads the transition
 *     tables; if the statement touched exactly one community and the
 *     transaction is READ COMMITTED, takes that community's advisory lock
 *     SHARED (same key as community_deletion._community_lock_key) and then, in a
 *     new snapshot, looks its state up: active → allowed. No rows → nothing to
 *     decide. Anything else (several communities, not active, missing, not
 *     READ COMMITTED, attached the wrong way) → community_deletion._write_fence_plpgsql.
 *
 *   cd_fence_early      (tg_scoped_table__refuse_write_early when native)
 *     BEFORE … FOR EACH ROW (attached without a WHEN clause). Checks each
 *     community once per statement (a backend-local list, cleared by
 *     cd_fence_statement at the end of every statement and on
 *     (sub)transaction abort): active → the row goes on; anything else →
 *     community_deletion._refuse_write_early_plpgsql, and if that lets the row
 *     through, the community counts as checked for the rest of the statement
 *     (as the PL/pgSQL check's hint does). Like the PL/pgSQL early check it
 *     authorises nothing: the statement trigger decides.
 *
 * Nothing here reads a setting to decide anything; the only state kept is the
 * early check's per-statement list, in backend memory a client cannot reach.
 * The state is read by name (public.communities, its primary key), never
 * through a caller's search_path.
 *
 * Builds against PostgreSQL 15 to 18. Of the backend API used here, only two
 * things changed in that range (the PG_VERSION_NUM guards below):
 *   17: PGPROC's lxid moved into PGPROC.vxid (MyProc->vxid.lxid);
 *   18: RelationGetPrimaryKeyIndex(rel, deferrable_ok) — false keeps the
 *       15–17 meaning (no index when the primary key is DEFERRABLE).
 * Everything else (LookupFuncName, systable_*, tuplestore_*, set_config_option,
 * GetConfigOption, GetLatestSnapshot, SPI_fnumber, MakeSingleTupleTableSlot,
 * try_table_open, pg_class_aclcheck, the xact/relcache callbacks, …) has the
 * same signature and meaning in 15, 16, 17 and 18.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/pg_list.h"
#include "parser/parse_func.h"
#include "storage/lockdefs.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"
#include "utils/uuid.h"

PG_MODULE_MAGIC;

/* The local id of this backend's current top-level transaction. */
#if PG_VERSION_NUM >= 170000
#define CURRENT_LXID() (MyProc->vxid.lxid)
#else
#define CURRENT_LXID() (MyProc->lxid)
#endif

/* The primary key index, InvalidOid when there is none or it is DEFERRABLE. */
#if PG_VERSION_NUM >= 180000
#define PRIMARY_KEY_INDEX(rel) RelationGetPrimaryKeyIndex((rel), false)
#else
#define PRIMARY_KEY_INDEX(rel) RelationGetPrimaryKeyIndex(rel)
#endif

/* Must equal community_deletion._community_lock_key (pinned by a pgTAP test). */
#define COMMUNITY_LOCK_SALT INT64CONST(7165065848772979813)
#define FENCE_HINT_SETTING "community_deletion.fence_checked"
#define EARLY_CHECKED_MAX 16

PG_FUNCTION_INFO_V1(cd_fence_statement);
PG_FUNCTION_INFO_V1(cd_fence_early);
PG_FUNCTION_INFO_V1(cd_community_lock_key);

void _PG_init(void);

/*
 * Communities the early check let through in the current statement, and the
 * transaction that statement belongs to.
 */
static pg_uuid_t early_checked[EARLY_CHECKED_MAX];
static int early_checked_count = 0;
static LocalTransactionId early_checked_lxid = InvalidLocalTransactionId;

static struct
{
	Oid			relid;			/* InvalidOid: not known (yet) */
	Oid			index;
	int			id_attnum;
	int			state_attnum;
}			communities;

static void
on_relcache(Datum arg, Oid relid)
{
	if (relid == InvalidOid || relid == communities.relid)
		communities.relid = InvalidOid;
}

static void
early_checked_clear(void)
{
	early_checked_count = 0;
}

static void
on_xact(XactEvent event, void *arg)
{
	early_checked_clear();
}

static void
on_subxact(SubXactEvent event, SubTransactionId mySubid,
		   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		early_checked_clear();
}

void
_PG_init(void)
{
	RegisterXactCallback(on_xact, NULL);
	RegisterSubXactCallback(on_subxact, NULL);
	CacheRegisterRelcacheCallback(on_relcache, (Datum) 0);
}

/* First eight bytes of the uuid, big-endian, XOR the salt. */
static int64
community_lock_key(const pg_uuid_t *community)
{
	uint64		v = 0;
	int			i;

	for (i = 0; i < 8; i++)
		v = (v << 8) | community->data[i];
	return ((int64) v) ^ COMMUNITY_LOCK_SALT;
}

Datum
cd_community_lock_key(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(community_lock_key(PG_GETARG_UUID_P(0)));
}

/*
 * public.communities as the lookup needs it, found by name once and kept
 * until a relcache invalidation of that table (ALTER, DROP, an index change)
 * or a full reset.
 */
static bool
communities_shape(void)
{
	Oid			nsp;
	Oid			relid;
	Relation	rel;
	TupleDesc	desc;
	Oid			indexid;
	int			id_attnum;
	int			state_attnum;
	bool		usable;

	nsp = get_namespace_oid("public", true);
	relid = OidIsValid(nsp) ? get_relname_relid("communities", nsp) : InvalidOid;
	if (!OidIsValid(relid))
		return false;
	rel = try_table_open(relid, AccessShareLock);
	if (rel == NULL)
		return false;
	desc = RelationGetDescr(rel);
	id_attnum = SPI_fnumber(desc, "id");
	state_attnum = SPI_fnumber(desc, "deletion_state");
	indexid = PRIMARY_KEY_INDEX(rel);
	usable = rel->rd_rel->relkind == RELKIND_RELATION && OidIsValid(indexid) &&
		id_attnum > 0 && TupleDescAttr(desc, id_attnum - 1)->atttypid == UUIDOID &&
		state_attnum > 0 && TupleDescAttr(desc, state_attnum - 1)->atttypid == TEXTOID;
	if (usable)
	{
		Relation	index = index_open(indexid, AccessShareLock);

		usable = index->rd_index->indnkeyatts == 1 &&
			index->rd_index->indkey.values[0] == id_attnum;
		index_close(index, AccessShareLock);
	}
	table_close(rel, AccessShareLock);
	if (!usable)
		return false;
	communities.index = indexid;
	communities.id_attnum = id_attnum;
	communities.state_attnum = state_attnum;
	communities.relid = relid;	/* last: marks the entry valid */
	return true;
}

/*
 * true iff the community's row exists and is active — read as the calling
 * role would read it, in a new READ COMMITTED snapshot taken now (after any
 * lock the caller has just been granted; after CommandCounterIncrement, so
 * the transaction's own earlier changes are seen, as an SPI query would).
 * A direct primary-key lookup, not an SPI query: it is the whole cost of a
 * single-row write's fence. Whenever it cannot answer the way a query by the
 * calling role would — no SELECT privilege, row-level security on
 * communities, an unexpected shape — it answers false and the caller hands
 * the decision to PL/pgSQL, which then fails or decides as it always did.
 */
static bool
community_is_active(const pg_uuid_t *community)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	Snapshot	snapshot;
	HeapTuple	tuple;
	bool		active = false;

	if (!OidIsValid(communities.relid) && !communities_shape())
		return false;
	if (pg_class_aclcheck(communities.relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		return false;
	rel = try_table_open(communities.relid, AccessShareLock);
	if (rel == NULL)
		return false;
	/* Opening may have processed an invalidation of what we knew. */
	if (communities.relid != RelationGetRelid(rel) || rel->rd_rel->relrowsecurity)
	{
		table_close(rel, AccessShareLock);
		return false;
	}

	CommandCounterIncrement();
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyInit(&key, communities.id_attnum, BTEqualStrategyNumber, F_UUID_EQ, UUIDPGetDatum(community));
	scan = systable_beginscan(rel, communities.index, true, snapshot, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		bool		isnull;
		Datum		d = heap_getattr(tuple, communities.state_attnum, RelationGetDescr(rel), &isnull);

		if (!isnull)
		{
			text	   *state = DatumGetTextPP(d);

			active = VARSIZE_ANY_EXHDR(state) == 6 && memcmp(VARDATA_ANY(state), "active", 6) == 0;
			if ((Pointer) state != DatumGetPointer(d))
				pfree(state);
		}
	}
	systable_endscan(scan);
	UnregisterSnapshot(snapshot);
	table_close(rel, AccessShareLock);
	return active;
}

/*
 * Hands the call, with its trigger context, to the PL/pgSQL rules: <name>()
 * in the schema of the calling trigger function (community_deletion), or,
 * in a database still at the layout before the engine had its own schema,
 * <legacy>() there (public). Looked up by schema and name, never through
 * search_path.
 */
static Datum
delegate(FunctionCallInfo fcinfo, const char *name, const char *legacy)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	char	   *schema = get_namespace_name(nsp);
	Oid			fn;
	FmgrInfo	flinfo;
	Datum		result;
	LOCAL_FCINFO(inner, 0);

	fn = LookupFuncName(list_make2(makeString(schema), makeString((char *) name)), 0, NULL, true);
	if (!OidIsValid(fn))
		fn = LookupFuncName(list_make2(makeString(schema), makeString((char *) legacy)), 0, NULL, false);
	fmgr_info(fn, &flinfo);
	InitFunctionCallInfoData(*inner, &flinfo, 0, fcinfo->fncollation, fcinfo->context, NULL);
	result = FunctionCallInvoke(inner);
	fcinfo->isnull = inner->isnull;
	return result;
}

#define DECIDE_STATEMENT(fcinfo) delegate(fcinfo, "_write_fence_plpgsql", "_deletion_write_fence_plpgsql")
#define DECIDE_EARLY(fcinfo) delegate(fcinfo, "_refuse_write_early_plpgsql", "_deletion_refuse_write_early_plpgsql")

/* attnum of community_id when it is a uuid column, else 0. */
static int
community_attnum(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			attnum = SPI_fnumber(desc, "community_id");

	if (attnum <= 0 || TupleDescAttr(desc, attnum - 1)->atttypid != UUIDOID)
		return 0;
	return attnum;
}

typedef enum
{
	SEEN_NONE,					/* no row with a non-null community */
	SEEN_ONE,					/* exactly one distinct community */
	SEEN_MANY					/* more than one */
} Seen;

/* Adds the distinct non-null communities of one transition table to *seen. */
static Seen
collect(Tuplestorestate *rows, TupleDesc desc, int attnum, Seen seen, pg_uuid_t *community)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	/* Our own read pointer, as a NamedTuplestoreScan would allocate one. */
	int			reader = tuplestore_alloc_read_pointer(rows, EXEC_FLAG_REWIND);

	tuplestore_select_read_pointer(rows, reader);
	tuplestore_rescan(rows);
	while (seen != SEEN_MANY && tuplestore_gettupleslot(rows, true, false, slot))
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, attnum, &isnull);

		if (isnull)
			continue;
		if (seen == SEEN_NONE)
		{
			memcpy(community, DatumGetUUIDP(d), sizeof(pg_uuid_t));
			seen = SEEN_ONE;
		}
		else if (memcmp(community, DatumGetUUIDP(d), sizeof(pg_uuid_t)) != 0)
			seen = SEEN_MANY;
	}
	ExecDropSingleTupleTableSlot(slot);
	return seen;
}

Datum
cd_fence_statement(PG_FUNCTION_ARGS)
{
	TriggerData *td;
	const char *hint;
	int			attnum;
	Seen		seen = SEEN_NONE;
	pg_uuid_t	community;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("trigger functions can only be called as triggers")));
	td = (TriggerData *) fcinfo->context;

	/* The early check's list and hint live for one statement only. */
	early_checked_clear();
	hint = GetConfigOption(FENCE_HINT_SETTING, true, false);
	if (hint != NULL && hint[0] != '\0')
		(void) set_config_option(FENCE_HINT_SETTING, "", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_LOCAL, true, 0, false);

	if (!TRIGGER_FIRED_AFTER(td->tg_event) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) ||
		(attnum = community_attnum(td->tg_relation)) == 0)
		return DECIDE_STATEMENT(fcinfo);

	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
	{
		if (td->tg_newtable == NULL)
			return DECIDE_STATEMENT(fcinfo);
		seen = collect(td->tg_newtable, RelationGetDescr(td->tg_relation), attnum, seen, &community);
	}
	else if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		if (td->tg_oldtable == NULL)
			return DECIDE_STATEMENT(fcinfo);
		seen = collect(td->tg_oldtable, RelationGetDescr(td->tg_relation), attnum, seen, &community);
	}
	else if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		if (td->tg_oldtable == NULL || td->tg_newtable == NULL)
			return DECIDE_STATEMENT(fcinfo);
		seen = collect(td->tg_oldtable, RelationGetDescr(td->tg_relation), attnum, seen, &community);
		seen = collect(td->tg_newtable, RelationGetDescr(td->tg_relation), attnum, seen, &community);
	}
	else
		return DECIDE_STATEMENT(fcinfo);

	if (seen == SEEN_NONE)
		return PointerGetDatum(NULL);
	if (seen == SEEN_ONE && XactIsoLevel == XACT_READ_COMMITTED)
	{
		DirectFunctionCall1(pg_advisory_xact_lock_shared_int8,
							Int64GetDatum(community_lock_key(&community)));
		if (community_is_active(&community))
			return PointerGetDatum(NULL);
	}
	return DECIDE_STATEMENT(fcinfo);
}

Datum
cd_fence_early(PG_FUNCTION_ARGS)
{
	TriggerData *td;
	HeapTuple	row;
	HeapTuple	result;
	int			attnum;
	bool		isnull;
	Datum		d;
	pg_uuid_t	community;
	int			i;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("trigger functions can only be called as triggers")));
	td = (TriggerData *) fcinfo->context;

	if (!TRIGGER_FIRED_BEFORE(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		XactIsoLevel != XACT_READ_COMMITTED ||
		(attnum = community_attnum(td->tg_relation)) == 0)
		return DECIDE_EARLY(fcinfo);

	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		bool		old_null;
		Datum		old_d;

		row = td->tg_newtuple;
		result = td->tg_newtuple;
		d = heap_getattr(row, attnum, RelationGetDescr(td->tg_relation), &isnull);
		old_d = heap_getattr(td->tg_trigtuple, attnum, RelationGetDescr(td->tg_relation), &old_null);
		/* A row moving between communities is checked for both: PL/pgSQL. */
		if (isnull || old_null ||
			memcmp(DatumGetUUIDP(d), DatumGetUUIDP(old_d), sizeof(pg_uuid_t)) != 0)
			return DECIDE_EARLY(fcinfo);
	}
	else
	{
		row = td->tg_trigtuple;
		result = td->tg_trigtuple;
		d = heap_getattr(row, attnum, RelationGetDescr(td->tg_relation), &isnull);
	}
	if (isnull)
		return DECIDE_EARLY(fcinfo);
	memcpy(&community, DatumGetUUIDP(d), sizeof(pg_uuid_t));

	if (early_checked_lxid != CURRENT_LXID())
	{
		early_checked_clear();
		early_checked_lxid = CURRENT_LXID();
	}
	for (i = 0; i < early_checked_count; i++)
		if (memcmp(&early_checked[i], &community, sizeof(pg_uuid_t)) == 0)
			return PointerGetDatum(result);

	if (!community_is_active(&community))
	{
		/*
		 * Not active: PL/pgSQL decides (55000, or the engine at fenced, or a
		 * serving grant at quiescing). If it lets the row through, the
		 * community counts as checked for the rest of the statement, as the
		 * PL/pgSQL early check's hint does — so the purge's DELETEs pay one
		 * PL/pgSQL call per statement, not one per row.
		 */
		Datum		passed = DECIDE_EARLY(fcinfo);

		if (early_checked_count < EARLY_CHECKED_MAX)
			early_checked[early_checked_count++] = community;
		return passed;
	}
	if (early_checked_count < EARLY_CHECKED_MAX)
		early_checked[early_checked_count++] = community;
	return PointerGetDatum(result);
}
