-- The rule "a task students cannot see has no reminder events" moves from the statement-level
-- trigger of sql/042 into the two statements that generate events
-- (src/modules/reminders/queries.ts: generateForMembers, generateForStudents), which filter on
-- publish_state = 'PUBLISHED' after locking the tasks FOR KEY SHARE. Every generator lives
-- there; the trigger inserted rows only to delete them again and probed the tasks once more
-- per statement.
drop trigger if exists homework_reminder_events_unpublished on homework_reminder_events;
drop function if exists homework_reminder_events_drop_unpublished();
