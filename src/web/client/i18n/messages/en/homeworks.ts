/** English, namespace `homeworks`: the homework centre (list and calendar of deadlines). */
export default {
  title: 'Homework',
  viewLabel: 'Show as',
  view: {
    list: 'List',
    week: 'Week',
    month: 'Month',
  },
  unreadReminders_one: 'You have {{count}} unread reminder.',
  unreadReminders_other: 'You have {{count}} unread reminders.',
  readInMessages: 'Read them in Messages',
  filterByStatus: 'Filter by status',
  all: 'All',
  status: {
    NOT_STARTED: 'Not started',
    IN_PROGRESS: 'In progress',
    SUBMITTED: 'Submitted',
    OVERDUE: 'Overdue',
  },
  mark: {
    missing: 'Missing',
    late: 'Late',
    notGraded: 'Not graded',
  },
  course: 'Course',
  allCourses: 'All courses',
  none: 'No homework yet.',
  noneMatching: 'No homework matches these filters.',
  experiment: 'Experiment',
  score: 'Score {{score}}',
  submittedOf: '{{n}}/{{total}} submitted',
  opensIn: 'Opens {{relative}}, on {{date}}',
  due: 'Due',
  submittedAt: 'submitted',
  calendar: {
    today: 'Today',
    todayMark: '(today)',
    prev: {
      week: 'Previous week',
      month: 'Previous month',
    },
    next: {
      week: 'Next week',
      month: 'Next month',
    },
    empty: {
      week: 'Nothing due this week.',
      month: 'Nothing due this month.',
    },
  },
}
