-- relaybot-wake.lua: Dovecot tells `relaybot run` the moment mail lands in its mailbox.
--
-- Dovecot's IMAP IDLE tells a client about new mail half a second after it lands (a
-- fixed delay in Dovecot); with this script Dovecot's push_notification plugin (Lua
-- driver) sends one HTTP POST to relaybot's wake listener (`[imap] wake_listen`) as
-- soon as a delivery (LMTP or LDA: MessageNew) or an IMAP APPEND (MessageAppend) to the
-- bot's folder has been committed, and relaybot looks at once. The POST is only a hint:
-- relaybot's poll is the same UID SEARCH as ever, and without the POST (relaybot
-- stopped, a wrong URL) IDLE and the poll interval find the mail as before.
--
-- Settings, in Dovecot's `plugin { }` block (or as userdb extra fields, per user):
--   relaybot_wake_url    = http://127.0.0.1:8025/wake   (required: where relaybot listens)
--   relaybot_wake_user   = relay@club.example           (optional: only this user's mail)
--   relaybot_wake_folder = INBOX                        (optional: relaybot's [imap] folder)
--   relaybot_wake_timeout_msecs = 1000                  (optional: see below)
-- docs/operating.md ("Waking relaybot at once") has the whole Dovecot configuration.
--
-- The request is synchronous: Dovecot finishes the delivery (or answers the APPEND) only
-- when relaybot has answered, which it does at once. The timeout bounds what a hung or
-- unreachable relaybot can cost a delivery; a failed request is logged by Dovecot and
-- changes nothing else (the mail is already stored).

local DEFAULT_TIMEOUT_MSECS = 1000

local function setting(user, name)
  local value = user:plugin_getenv(name)
  if value == nil or value == "" then
    return nil
  end
  return value
end

function dovecot_lua_notify_begin_txn(user)
  -- only the bot's own mailbox, when a user is named: other users' mail never wakes it
  local only = setting(user, "relaybot_wake_user")
  local wanted = only == nil or only == user.username
  return {
    user = user,
    url = wanted and setting(user, "relaybot_wake_url") or nil,
    folder = setting(user, "relaybot_wake_folder") or "INBOX",
    wake = false,
  }
end

local function note(ctx, event)
  -- relaybot's own MOVE to Processed is an append too: only its folder counts
  if ctx.url ~= nil and event.mailbox == ctx.folder then
    ctx.wake = true
  end
end

function dovecot_lua_notify_event_message_new(ctx, event)
  note(ctx, event)
end

function dovecot_lua_notify_event_message_append(ctx, event)
  note(ctx, event)
end

function dovecot_lua_notify_end_txn(ctx, success)
  if not success or not ctx.wake then
    return
  end
  local timeout = tonumber(setting(ctx.user, "relaybot_wake_timeout_msecs"))
    or DEFAULT_TIMEOUT_MSECS
  -- a client per request: no connection or back-off state is carried from one delivery
  -- to the next (relaybot closes each connection after its answer)
  local client = dovecot.http.client({
    request_absolute_timeout_msecs = timeout,
    request_timeout_msecs = timeout,
    connect_timeout_msecs = timeout,
    max_attempts = 1,
    max_connect_attempts = 1,
    no_auto_retry = true,
    user_agent = "dovecot-relaybot-wake",
  })
  -- no body: with one, Dovecot's client would first wait for "100 Continue"
  local request = client:request({ url = ctx.url, method = "POST" })
  local response = request:submit()
  local status = response:status()
  if status < 200 or status > 299 then
    dovecot.i_warning(string.format(
      "relaybot wake: %s answered %d %s (harmless: relaybot still finds the mail by IDLE)",
      ctx.url, status, response:reason() or ""))
  end
end
