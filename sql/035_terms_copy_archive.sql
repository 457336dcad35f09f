-- Terms: an archived course is read-only and hidden from the default course list (issue 24).
-- The flag is checked by the course guard (src/http/guards.ts) on every write in the course,
-- by joining by invite code, and by the reminder dispatch (nothing is sent from it).
alter table courses add column if not exists archived boolean not null default false;
