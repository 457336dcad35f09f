import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/courses.ts'

/** 简体中文，命名空间 `courses`：课程列表、创建课程、加入课程。 */
const zh: Catalogue<typeof en> = {
  title: '我的课程',
  teaching: '我教的课程',
  joined: '我加入的课程',
  loading: '正在加载课程…',
  emptyTeacher: '还没有课程，创建你的第一门课程吧。',
  emptyUnverified: '你还没有加入任何课程。如果老师邀请了你的邮箱，请先验证邮箱（点击我们发给你的邮件中的链接），验证后会立即加入课程。也可以向老师索取邀请码。',
  emptyStudent: '你还没有加入任何课程，请向老师索取邀请码。',
  youTeach: '你是这门课的任课教师',
  teacher: '教师：{{name}}',
  members_one: '{{count}} 名成员',
  members_other: '{{count}} 名成员',
  inviteCode: '邀请码：',
  copyCode: '复制邀请码',
  manage: '管理',
  create: {
    heading: '创建课程',
    title: '课程名称',
    description: '课程简介',
    titleRequired: '请填写课程名称。',
    descriptionRequired: '请用一两句话介绍这门课程。',
    submit: '创建课程',
    submitting: '正在创建…',
    ready: '<0>{{title}}</0> 已创建好。把这个邀请码发给你的学生：',
    setUp: '去设置课程',
  },
  join: {
    heading: '加入课程',
    code: '邀请码',
    codeHint: '8 位字母和数字，由老师提供。',
    codeRequired: '请输入老师给你的邀请码。',
    submit: '加入课程',
    submitting: '正在加入…',
    joined: '已加入，正在打开课程…',
  },
}
export default zh
