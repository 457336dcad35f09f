-- Notifications with structure (issue 12.5): `params` holds what a text is made of (course and
-- task titles, the trigger, dueAt as ISO-8601, the score...), so title and content are rendered
-- when they are read, in the reader's language, with no clock time fixed in one time zone.
-- Rows written before this column keep their stored title/content (params null).
alter table notifications add column if not exists params jsonb;
