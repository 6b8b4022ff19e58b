-- Index of the lifecycle workstream's objects, in dependency order (tables/columns first,
-- then functions, then triggers). Included by db/migrations/current.sql.
select 1;
