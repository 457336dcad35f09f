import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/homeworks.ts'

/** 简体中文，命名空间 `homeworks`：作业中心（截止时间列表与日历）。 */
const zh: Catalogue<typeof en> = {
  title: '作业',
  viewLabel: '显示方式',
  view: {
    list: '列表',
    week: '周',
    month: '月',
  },
  unreadReminders_one: '你有 {{count}} 条未读提醒。',
  unreadReminders_other: '你有 {{count}} 条未读提醒。',
  readInMessages: '去消息里查看',
  filterByStatus: '按状态筛选',
  all: '全部',
  status: {
    NOT_STARTED: '未开始',
    IN_PROGRESS: '进行中',
    SUBMITTED: '已提交',
    OVERDUE: '已逾期',
  },
  mark: {
    missing: '缺交',
    late: '迟交',
    notGraded: '未批改',
  },
  course: '课程',
  allCourses: '全部课程',
  none: '还没有作业。',
  noneMatching: '没有符合筛选条件的作业。',
  experiment: '实验',
  score: '{{score}} 分',
  submittedOf: '已交 {{n}}/{{total}}',
  opensIn: '{{relative}}开放（{{date}}）',
  due: '截止',
  submittedAt: '提交于',
  calendar: {
    today: '今天',
    todayMark: '（今天）',
    prev: {
      week: '上一周',
      month: '上个月',
    },
    next: {
      week: '下一周',
      month: '下个月',
    },
    empty: {
      week: '本周没有要截止的。',
      month: '本月没有要截止的。',
    },
  },
}
export default zh
