-- Drafts and retiring work (issue 29.9): a task is DRAFT, SCHEDULED (published by the
-- `task-publisher` job at publish_at), PUBLISHED or UNPUBLISHED. Students see PUBLISHED tasks
-- only; reminders and the "new homework" notification start when a task is published.
-- Every existing task was published when it was created.
alter table learning_tasks
  add column if not exists publish_state text not null default 'PUBLISHED'
    check (publish_state in ('DRAFT', 'SCHEDULED', 'PUBLISHED', 'UNPUBLISHED')),
  add column if not exists publish_at timestamptz,
  add column if not exists published_at timestamptz;

update learning_tasks set published_at = created_at where published_at is null and publish_state = 'PUBLISHED';

alter table learning_tasks
  add constraint learning_tasks_publish_at_check check ((publish_state = 'SCHEDULED') = (publish_at is not null));

-- The publisher's scan: scheduled tasks by time (few rows; the partial index stays tiny).
create index if not exists learning_tasks_scheduled_idx on learning_tasks (publish_at) where publish_state = 'SCHEDULED';

-- A task students cannot see has no reminder events, whichever writer generates them (a
-- student joining, a roster import, a course unarchived or copied, a rescheduling): the events
-- a statement inserted for such a task are removed in that statement. Statement-level with the
-- transition table, so a 6,000-event fan-out pays one probe per distinct task. Named to sort
-- after homework_reminder_events_refs (triggers fire in name order): that one has locked the
-- tasks FOR KEY SHARE, so an unpublish that locked its task first has committed by now and
-- this statement's snapshot sees its state.
create or replace function homework_reminder_events_drop_unpublished() returns trigger
language plpgsql as $$
begin
  if exists (select 1 from learning_tasks t
              where t.id in (select n.task_id from new_rows n) and t.publish_state <> 'PUBLISHED') then
    delete from homework_reminder_events e
     using new_rows n, learning_tasks t
     where e.id = n.id and t.id = n.task_id and t.publish_state <> 'PUBLISHED';
  end if;
  return null;
end
$$;

drop trigger if exists homework_reminder_events_unpublished on homework_reminder_events;
create trigger homework_reminder_events_unpublished after insert on homework_reminder_events
  referencing new table as new_rows for each statement execute function homework_reminder_events_drop_unpublished();

-- More than one file per submission (issue 29.7): homework answer sheets and experiment
-- submissions take one or more files (photos from a phone included). An experiment submission
-- keeps its first file in its own columns (the single-file API is unchanged) and its further
-- files here from position 2; a learning submission keeps all of its files here from position 1.
create table if not exists submission_files (
  id                       uuid primary key,
  experiment_submission_id uuid references experiment_submissions (id) on delete cascade,
  learning_submission_id   uuid references learning_submissions (id) on delete cascade,
  position                 integer not null check (position between 1 and 100),
  storage_key              text not null,
  file_name                text not null,
  file_size                bigint not null,
  content_type             text not null,
  check (num_nonnulls(experiment_submission_id, learning_submission_id) = 1)
);
create unique index if not exists submission_files_experiment_idx
  on submission_files (experiment_submission_id, position) where experiment_submission_id is not null;
create unique index if not exists submission_files_learning_idx
  on submission_files (learning_submission_id, position) where learning_submission_id is not null;
-- The storage sweep and backups look files up by key.
create index if not exists submission_files_storage_key_idx on submission_files (storage_key);
