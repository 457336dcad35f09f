-- Drafts and scheduled announcements (issue 56.4), as tasks have them (sql/042): an announcement
-- is DRAFT, SCHEDULED (published by the publisher job at publish_at) or PUBLISHED. Students see
-- PUBLISHED ones only, and are notified once, when it is published. There is no UNPUBLISHED:
-- the notifications are out by then; deleting retracts them. Every existing announcement was
-- published when it was created.
alter table announcements
  add column if not exists publish_state text not null default 'PUBLISHED'
    check (publish_state in ('DRAFT', 'SCHEDULED', 'PUBLISHED')),
  add column if not exists publish_at timestamptz,
  add column if not exists published_at timestamptz;

update announcements set published_at = created_at where published_at is null and publish_state = 'PUBLISHED';
-- A writer that knows nothing of drafts (an import, a script, a fixture) inserts a published
-- announcement: published now. The service names all three columns.
alter table announcements alter column published_at set default now();

alter table announcements
  add constraint announcements_publish_at_check check ((publish_state = 'SCHEDULED') = (publish_at is not null)),
  add constraint announcements_published_at_check check ((publish_state = 'PUBLISHED') = (published_at is not null));

-- The students' list: published ones, newest publication first.
create index if not exists announcements_published_idx
  on announcements (course_id, published_at desc, id desc) where publish_state = 'PUBLISHED';
-- The teacher's drafts and scheduled ones (few: they become published), counted for the students'
-- total (course_counters counts them all), and the publisher's scan by time.
create index if not exists announcements_unpublished_idx on announcements (course_id) where publish_state <> 'PUBLISHED';
create index if not exists announcements_scheduled_idx on announcements (publish_at) where publish_state = 'SCHEDULED';
