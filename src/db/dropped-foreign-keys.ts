/**
 * The foreign keys the schema gave up for statement-level triggers (docs/database.md "Foreign keys
 * given up"), one entry each. A statement that writes rows of these tables is checked by the
 * named triggers once per statement (SQLSTATE 23503 when a referenced row is missing), not by a
 * constraint; every such INSERT in src/ carries a comment pointing here.
 * test/database/dropped-foreign-keys.test.ts checks each entry against a migrated database (no
 * such constraint, every trigger present, a missing parent refused with 23503) and against the
 * table in docs/database.md.
 */
export interface DroppedForeignKey {
  table: string
  column: string
  references: string
  onDelete: 'cascade' | 'set null'
  /** The migration that dropped it. */
  dropped: string
  /** The triggers that do its work: the statement's reference check, the parent's cascade, the row's fixed reference. */
  triggers: readonly string[]
}

export const DROPPED_FOREIGN_KEYS: readonly DroppedForeignKey[] = [
  { table: 'notifications', column: 'user_id', references: 'users', onDelete: 'cascade', dropped: '026', triggers: ['notifications_refs', 'users_notifications', 'notifications_refs_fixed'] },
  { table: 'notifications', column: 'event_id', references: 'homework_reminder_events', onDelete: 'set null', dropped: '026', triggers: ['notifications_refs', 'notifications_refs_fixed'] },
  {
    table: 'homework_reminder_events',
    column: 'task_id',
    references: 'learning_tasks',
    onDelete: 'cascade',
    dropped: '027',
    triggers: ['homework_reminder_events_refs', 'learning_tasks_reminder_events', 'homework_reminder_events_refs_fixed'],
  },
  {
    table: 'homework_reminder_events',
    column: 'target_user_id',
    references: 'users',
    onDelete: 'cascade',
    dropped: '027',
    triggers: ['homework_reminder_events_refs', 'users_reminder_events', 'users_delete_lock'],
  },
  {
    table: 'email_outbox',
    column: 'notification_id',
    references: 'notifications',
    onDelete: 'cascade',
    dropped: '048',
    triggers: ['email_outbox_refs', 'notifications_email_outbox', 'email_outbox_refs_fixed'],
  },
  { table: 'email_outbox', column: 'user_id', references: 'users', onDelete: 'cascade', dropped: '048', triggers: ['email_outbox_refs', 'users_email_outbox', 'email_outbox_refs_fixed'] },
]
