/** English, namespace `unsubscribe`: the page an e-mail's "turn these e-mails off" link opens. */
export default {
  title: 'Turn these e-mails off',
  ask: 'Stop e-mailing you {{type}}? You still see them in Course Learning, and you can turn the e-mails back on in Settings.',
  askAny: 'Stop e-mailing you this kind of notification? You still see them in Course Learning, and you can turn the e-mails back on in Settings.',
  confirm: 'Turn them off',
  working: 'Turning them off…',
  done: 'Done: you no longer receive {{type}} by e-mail.',
  missing: 'This page needs the link from your e-mail.',
  toSettings: 'Open Settings',
  types: {
    HOMEWORK_REMINDER: 'homework reminders',
    SUBMISSION_GRADED: 'grading notices',
    ANNOUNCEMENT: 'announcements',
    SUBMISSION_RECEIVED: 'new-submission notices',
    PRIVATE_COMMENT: 'private comments',
    COMMENT_REPLY: 'class comment notices',
  },
}
