-- Enter migration here
-- list_requests gains filters and paging (in_state, host, before), all
-- defaulted so list_requests() and list_requests(n) keep working;
-- key_chunk_progress also counts object versions (entries_total,
-- entries_deleted). Both change their signature: drop, then recreate.
drop function if exists community_deletion.list_requests(integer);
drop function if exists community_deletion.key_chunk_progress(uuid);
--!include functions/key_chunk_progress.sql
--!include functions/list_requests.sql
--!include engine/comments.sql
--!include engine/grants.sql
