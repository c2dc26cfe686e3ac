-- The role and database of ebb's shared store, run once on the PostgreSQL primary as the
-- postgres superuser:  sudo -u postgres psql -f postgresql-ebb.sql
-- ebb-controller creates and migrates its own tables (versioned migrations) at its first
-- start; it needs no other privilege than owning this database.
CREATE ROLE ebb LOGIN;
-- A password for password authentication (scram-sha-256 in pg_hba.conf); ebb-controller
-- reads it from a libpq password file (passfile= in the store URI), never from ebb.conf.
-- \password ebb
CREATE DATABASE ebb OWNER ebb;
-- The leader's transactions are short; a paused leader must not hold the fence row. The
-- controller sets idle_in_transaction_session_timeout on its own sessions; this is the same
-- bound for anyone else connecting as ebb (psql sessions left open by an operator).
ALTER ROLE ebb SET idle_in_transaction_session_timeout = '10s';
