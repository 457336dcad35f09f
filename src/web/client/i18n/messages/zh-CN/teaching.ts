import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/teaching.ts'

/** 简体中文，命名空间 `teaching`：测验修改与重新评分、提交、截止时间、成绩标记。 */
const zh: Catalogue<typeof en> = {
  quizEdit: {
    regraded: '已保存。已按新的答案或分值重新评分 {{rescored}} / {{sheets}} 份答卷。',
    needsReview_one: '{{count}} 份答卷的简答题得分高于该题新的分值，请重新评分。',
    needsReview_other: '{{count}} 份答卷的简答题得分高于该题新的分值，请重新评分。',
    confirmTitle: '你删除的题目已有学生作答',
    confirmBody: '删除后，这些作答将从所有答卷中移除，答卷会在不计这些题目的情况下重新评分：',
    answers_one: '{{count}} 份作答',
    answers_other: '{{count}} 份作答',
    confirm: '删除并保存',
    keep: '继续编辑',
  },
  next: {
    overdue: '已逾期',
    wasDue: '截止于{{relative}} · {{date}}',
    moreOverdue_one: '另有 {{count}} 项逾期',
    moreOverdue_other: '另有 {{count}} 项逾期',
    lateAccepted: '仍可提交，但会标记为迟交。',
  },
  gone: {
    title: '该任务已不在课程中',
    body: '此链接发出后，老师删除了该任务，因此无需提交。相关提醒也已停止。',
  },
}
export default zh
