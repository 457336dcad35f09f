import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/publishing.ts'

/** 简体中文，命名空间 `publishing`：任务的草稿、定时发布与撤回发布。 */
const zh: Catalogue<typeof en> = {
  state: {
    DRAFT: '草稿',
    SCHEDULED: '定时发布',
    UNPUBLISHED: '已撤回',
  },
  scheduledFor: '将于 {{when}} 发布',
  hidden: '学生不可见',
  legend: '学生何时可见',
  choice: {
    PUBLISHED: '立即发布',
    DRAFT: '保存为草稿',
    SCHEDULED: '定时发布',
  },
  choiceHint: {
    PUBLISHED: '学生立即可见，作业提醒随即开始。',
    DRAFT: '仅教师可见，不发送通知，也没有提醒。',
    SCHEDULED: '在下方时间发布：届时通知学生并开始提醒。',
  },
  publishAt: '发布时间',
  publishAtRequired: '请选择一个将来的时间。',
  submit: {
    DRAFT: '保存草稿',
    SCHEDULED: '定时发布',
  },
  publish: '立即发布',
  publishLabel: '立即发布：{{title}}',
  unpublish: '撤回发布',
  unpublishLabel: '撤回发布：{{title}}',
  confirmUnpublish: '撤回发布“{{title}}”？学生将看不到它；已提交的作业会保留，待发送的提醒将停止。',
  working: '正在保存…',
}
export default zh
