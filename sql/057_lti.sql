-- LTI 1.3: the service as a platform (issue 52).
--
-- lti_keys: the platform's RS256 signing keys, shared by every instance. The newest active key
-- signs; a rotated key stays published in the JWKS until `retire_after` (the tokens it signed
-- have expired), then it is deleted.
create table lti_keys (
  kid          text primary key,
  private_jwk  jsonb not null,
  public_jwk   jsonb not null,
  created_at   timestamptz not null,
  -- Set when a newer key takes over: published until then, never signing again.
  retire_after timestamptz
);

-- A registered tool: for one course (course_id) or, by the operator, for every course (null).
create table lti_tools (
  id               uuid primary key,
  course_id        uuid references courses (id) on delete cascade,
  name             text not null,
  client_id        text not null unique,
  deployment_id    text not null,
  login_url        text not null,
  launch_url       text not null,
  jwks_url         text not null,
  redirect_uris    text[] not null,
  deep_linking_url text,
  send_name        boolean not null default true,
  send_email       boolean not null default false,
  -- The AGS/NRPS scopes the tool may ask a token for.
  scopes           text[] not null,
  created_by       uuid references users (id) on delete set null,
  created_at       timestamptz not null
);
create index lti_tools_course_idx on lti_tools (course_id);

-- One launch: made when a member opens an LTI task (its id is the lti_message_hint), spent
-- once by the authorization request, for that member only; the nonce the tool sent is kept
-- so that no other authorization request of the tool may use it again.
create table lti_launches (
  id           uuid primary key,
  tool_id      uuid not null references lti_tools (id) on delete cascade,
  course_id    uuid not null references courses (id) on delete cascade,
  task_id      uuid references learning_tasks (id) on delete cascade,
  -- Deep linking: the knowledge point the picked items become tasks of.
  point_id     uuid references knowledge_points (id) on delete cascade,
  user_id      uuid not null references users (id) on delete cascade,
  message_type text not null check (message_type in ('LtiResourceLinkRequest', 'LtiDeepLinkingRequest')),
  created_at   timestamptz not null,
  expires_at   timestamptz not null,
  used_at      timestamptz,
  -- Deep linking: when the tool's response came back (once).
  returned_at  timestamptz,
  nonce        text,
  unique (tool_id, nonce)
);
create index lti_launches_expires_idx on lti_launches (expires_at);

-- LTI Dynamic Registration: a registration token handed to a tool by a course's teacher (only
-- its SHA-256 kept), good once for an hour; the tool it registered.
create table lti_registrations (
  id         uuid primary key,
  course_id  uuid not null references courses (id) on delete cascade,
  created_by uuid references users (id) on delete set null,
  token_hash text not null unique,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at    timestamptz,
  tool_id    uuid references lti_tools (id) on delete set null
);

-- The client assertions already used at the token endpoint (jti single-use until it expires).
create table lti_assertions (
  tool_id    uuid not null references lti_tools (id) on delete cascade,
  jti        text not null,
  expires_at timestamptz not null,
  primary key (tool_id, jti)
);

-- A task of type LTI opens a registered tool.
alter table learning_tasks drop constraint learning_tasks_task_type_check;
alter table learning_tasks add constraint learning_tasks_task_type_check check (task_type in ('MEDIA', 'QUIZ', 'LTI'));
alter table learning_tasks
  add column lti_tool_id uuid references lti_tools (id) on delete set null,
  add column lti_target_link_uri text,
  add column lti_custom jsonb,
  -- The AGS line item of the task: its maximum score and label as the tool set them.
  add column lti_score_maximum numeric not null default 100;
create index learning_tasks_lti_tool_idx on learning_tasks (lti_tool_id) where lti_tool_id is not null;

-- As sql/041, with LTI tasks counted like quizzes (a score posted by the tool is the sheet's score).
create or replace function refresh_grade_totals(p_courses uuid[], p_students uuid[]) returns void
language plpgsql as $$
begin
  -- One row per pair, locked in key order before recomputing. Under READ COMMITTED every
  -- statement below takes a fresh snapshot, so a writer that waited here for another one sees
  -- that one's submissions: concurrent submissions of one student cannot lose an update.
  insert into grade_totals (course_id, student_id, task_count, task_graded, task_score_sum, lab_count, lab_graded, lab_score_sum)
  select distinct p.c, p.s, 0, 0, 0, 0, 0, 0
    from unnest(p_courses, p_students) as p (c, s)
   where exists (select 1 from courses c where c.id = p.c)
     and exists (select 1 from users u where u.id = p.s)
   order by 1, 2
  on conflict do nothing;

  perform 1
     from grade_totals g
     join unnest(p_courses, p_students) as p (c, s) on g.course_id = p.c and g.student_id = p.s
    order by g.course_id, g.student_id
      for update of g;

  update grade_totals g
     set task_count = t.task_count, task_graded = t.task_graded, task_score_sum = t.task_score_sum,
         lab_count = t.lab_count, lab_graded = t.lab_graded, lab_score_sum = t.lab_score_sum,
         task_scores = t.task_scores, task_submitted = t.task_submitted
    from (select p.c, p.s,
                 count(*) filter (where x.lab = false)::int as task_count,
                 count(*) filter (where x.lab = false and x.graded)::int as task_graded,
                 coalesce(sum(x.score) filter (where x.lab = false and x.graded), 0) as task_score_sum,
                 count(*) filter (where x.lab)::int as lab_count,
                 count(*) filter (where x.lab and x.graded)::int as lab_graded,
                 coalesce(sum(x.score) filter (where x.lab and x.graded), 0) as lab_score_sum,
                 coalesce(json_object_agg(x.item_id, x.score) filter (where x.lab = false and x.score is not null), '{}') as task_scores,
                 coalesce(json_object_agg(x.item_id, (extract(epoch from x.submitted_at) * 1000)::bigint) filter (where x.lab = false), '{}') as task_submitted
            from (select distinct c, s from unnest(p_courses, p_students) as u (c, s)) p
            left join lateral (
                   -- Per task of the course, its newest submission by this student: one
                   -- probe of learning_submissions_task_student_idx.
                   (select false as lab, t.id as item_id, ls.score, (ls.status = 'GRADED' and ls.score is not null) as graded, ls.submitted_at
                      from learning_tasks t
                      cross join lateral (
                            select sub.score, sub.status, sub.submitted_at
                              from learning_submissions sub
                             where sub.task_id = t.id and sub.student_id = p.s
                             order by sub.submitted_at desc, sub.id desc
                             limit 1) ls
                     where t.course_id = p.c and (t.task_kind = 'HOMEWORK' or t.task_type in ('QUIZ', 'LTI')))
                   union all
                   -- The same per experiment (experiment_submissions_exp_student_idx).
                   (select true, e.id, es.score, es.score is not null, es.submitted_at
                      from experiments e
                      cross join lateral (
                            select sub.score, sub.submitted_at
                              from experiment_submissions sub
                             where sub.experiment_id = e.id and sub.student_id = p.s
                             order by sub.submitted_at desc, sub.id desc
                             limit 1) es
                     where e.course_id = p.c)
                 ) x on true
           group by p.c, p.s) t
   where g.course_id = t.c and g.student_id = t.s;

  delete from grade_totals g
   using unnest(p_courses, p_students) as p (c, s)
   where g.course_id = p.c and g.student_id = p.s and g.task_count = 0 and g.lab_count = 0;
end
$$;
