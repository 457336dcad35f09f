-- Private iCalendar feeds: one secret token per user, rotatable (the old URL dies at once).
create table calendar_feeds (
  user_id    uuid primary key references users (id) on delete cascade,
  token      text not null unique,
  created_at timestamptz not null default now()
);

-- A calendar client replaces an event it already has only when SEQUENCE grows (RFC 5545
-- §3.8.7.4), so every deadline carries a revision that the database bumps whenever what the
-- feed shows of it (the time or the title) changes, whichever code path changed it.
alter table learning_tasks
  add column calendar_sequence integer not null default 0,
  add column calendar_modified_at timestamptz;
alter table experiments
  add column calendar_sequence integer not null default 0,
  add column calendar_modified_at timestamptz;

create function bump_calendar_revision() returns trigger language plpgsql as $$
begin
  if new.due_at is distinct from old.due_at or new.title is distinct from old.title then
    new.calendar_sequence := old.calendar_sequence + 1;
    new.calendar_modified_at := coalesce(new.updated_at, statement_timestamp());
  end if;
  return new;
end
$$;

create trigger learning_tasks_calendar_revision before update of due_at, title on learning_tasks
  for each row execute function bump_calendar_revision();
create trigger experiments_calendar_revision before update of due_at, title on experiments
  for each row execute function bump_calendar_revision();
