/** English, namespace `publishing`: drafts, scheduled publishing and unpublishing of tasks. */
const en = {
  state: {
    DRAFT: 'Draft',
    SCHEDULED: 'Scheduled',
    UNPUBLISHED: 'Unpublished',
  },
  scheduledFor: 'Publishes {{when}}',
  hidden: 'Hidden from students',
  legend: 'When students see it',
  choice: {
    PUBLISHED: 'Publish now',
    DRAFT: 'Save as draft',
    SCHEDULED: 'Publish later',
  },
  choiceHint: {
    PUBLISHED: 'Students see it at once; homework reminders start.',
    DRAFT: 'Only teachers see it. No notification, no reminders.',
    SCHEDULED: 'Published at the time below: then students are notified and reminders start.',
  },
  publishAt: 'Publish at',
  publishAtRequired: 'Choose a time in the future.',
  submit: {
    DRAFT: 'Save draft',
    SCHEDULED: 'Schedule',
  },
  publish: 'Publish now',
  publishLabel: 'Publish now: {{title}}',
  unpublish: 'Unpublish',
  unpublishLabel: 'Unpublish: {{title}}',
  confirmUnpublish: 'Unpublish "{{title}}"? Students will no longer see it; their submissions are kept and pending reminders stop.',
  working: 'Saving…',
}
export default en
