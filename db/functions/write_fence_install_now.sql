-- Installs the write fence's trigger functions — native when the library
-- loads, PL/pgSQL otherwise (write_fence_install.sql) — and re-attaches the
-- early triggers of the registered scoped tables in that form. Included by
-- a migration after write_fence_install.sql and before anything that fires
-- the fence.
select public._deletion_install_write_fence();
