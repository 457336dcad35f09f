/** English, namespace `settings`: the /settings page. */
export default {
  title: 'Settings',
  emailHeading: 'E-mail notifications',
  emailHint: 'Everything always arrives in Messages. Choose what is also sent to your e-mail address.',
  types: {
    HOMEWORK_REMINDER: { label: 'Homework reminders', hint: 'New homework, 24 hours before the deadline, and at the deadline.' },
    SUBMISSION_GRADED: { label: 'Grades', hint: 'When a teacher grades one of your submissions.' },
    ANNOUNCEMENT: { label: 'Announcements', hint: 'Every announcement in your courses.' },
    SUBMISSION_RECEIVED: { label: 'New submissions', hint: 'When a student hands in work in a course you teach (one message per submission).' },
    PRIVATE_COMMENT: { label: 'Private comments', hint: 'A private comment on your work (students) or on a student’s work (teachers).' },
    COMMENT_REPLY: { label: 'Class comments', hint: 'A new comment under something you wrote or commented on.' },
  },
  saved: 'Saved.',
  languageHeading: 'Language',
  languageHint: 'The language of pages, messages, e-mails and your calendar feed. It is saved on your account.',
}
