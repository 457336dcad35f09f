/** English, namespace `teaching`: quiz edits and regrades, hand-in, deadlines, grade labels. */
const en = {
  quizEdit: {
    regraded: 'Saved. {{rescored}} of {{sheets}} answer sheets were regraded with the new answer key or points.',
    needsReview_one: '{{count}} sheet has a short-answer score above its question’s new points; grade it again.',
    needsReview_other: '{{count}} sheets have a short-answer score above their question’s new points; grade them again.',
    confirmTitle: 'Students have answered the questions you removed',
    confirmBody: 'Removing them drops these answers from every sheet, and the sheets are regraded without them:',
    answers_one: '{{count}} answer',
    answers_other: '{{count}} answers',
    confirm: 'Remove and save',
    keep: 'Keep editing',
  },
  next: {
    overdue: 'Overdue',
    wasDue: 'Was due {{relative}} · {{date}}',
    moreOverdue_one: 'and {{count}} more overdue',
    moreOverdue_other: 'and {{count}} more overdue',
    lateAccepted: 'You can still hand these in; they are marked late.',
  },
  gone: {
    title: 'This task is no longer in the course',
    body: 'The teacher removed it after this link was sent, so there is nothing to hand in. Reminders for it have stopped.',
  },
}
export default en
