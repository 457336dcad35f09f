-- The language a person reads the service in. NULL: not chosen yet, so the browser's
-- Accept-Language decides; set from the settings page and remembered across devices.
alter table users add column if not exists locale text
  check (locale is null or locale in ('en', 'zh-CN'));
