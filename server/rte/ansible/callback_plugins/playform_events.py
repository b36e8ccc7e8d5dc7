# Playform structured events: a side channel for recap analytics.
# SPDX-License-Identifier: Apache-2.0
#
# Writes one JSON object per line (contract version "v": 1) to the file descriptor given
# by PLAYFORM_EVENTS_FD, or appends to the file named by PLAYFORM_EVENTS_FILE. With neither
# set it does nothing. It never changes the stdout callback's text and never fails the run:
# every callback swallows its own errors (and reports a "plugin_error" event if it can).
#
# The events carry only what the recap needs (names, hosts, statuses, counts, timings),
# never a task's result data, with one exception: under --diff, the diff of a changed result
# (a `diff` event), the text the stdout callback prints for it anyway. It is what a drift run
# reports per host (issue 22). The field list is in server/recap/events.ts.

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = '''
    name: playform_events
    type: notification
    short_description: write Playform recap events (JSON lines) to a side channel
    description:
      - Emits one JSON object per line to the file descriptor in C(PLAYFORM_EVENTS_FD)
        or appends to the file in C(PLAYFORM_EVENTS_FILE).
      - Only names, hosts, statuses and counters are written, never result data.
    requirements:
      - enable in configuration (ANSIBLE_CALLBACKS_ENABLED=playform_events)
'''

import errno
import json
import os
import re
import threading
import time

from ansible.plugins.callback import CallbackBase

try:
    from ansible.playbook.task_include import TaskInclude
except Exception:  # pragma: no cover - very old/new ansible layouts
    TaskInclude = None

EVENTS_VERSION = 1
# Labels (loop items, delegate_to, include files, error messages) hold whatever the playbook
# templated into them, secrets included. The RTE masks them, then cuts them to 200 characters
# (server/rte/output-batcher.ts): cut here, before the masking, a secret across the cut would
# keep its first characters unmasked. This cap only bounds an event line; the RTE drops what
# could be the start of a secret at the end of a text this long.
TEXT_MAX = 65536
MAX_ERROR_EVENTS = 20
# What a playbook hands back with set_stats (the job's artifacts), at most this many bytes of JSON.
ARTIFACTS_MAX = 1024 * 1024
MAX_BATCH_HOSTS = 100
# _get_diff colours its lines when the display does (ANSIBLE_FORCE_COLOR): the event keeps the text.
ANSI_SGR = re.compile(u'\x1b\\[[0-9;]*m')


def _text(value, limit=None):
    """Best effort str() of a value, truncated to limit characters."""
    if value is None:
        return None
    try:
        if isinstance(value, bytes):
            s = value.decode('utf-8', 'replace')
        else:
            s = u'%s' % (value,)
    except Exception:
        return None
    if limit is not None and len(s) > limit:
        s = s[:limit]
    return s


class _Sink(object):
    """Line writer on a raw fd (no Python buffering, so forked workers never re-flush)."""

    def __init__(self):
        self.fd = None
        self.owned = False
        self.lock = threading.Lock()
        fd_env = os.environ.get('PLAYFORM_EVENTS_FD')
        file_env = os.environ.get('PLAYFORM_EVENTS_FILE')
        try:
            if fd_env not in (None, ''):
                fd = int(fd_env)
                os.fstat(fd)  # raises if the fd is not open
                self.fd = fd
            elif file_env:
                self.fd = os.open(file_env, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                self.owned = True
        except Exception:
            self.fd = None

    @property
    def enabled(self):
        return self.fd is not None

    def write_line(self, line):
        data = line.encode('utf-8') + b'\n'
        with self.lock:
            if self.fd is None:
                return
            try:
                view = memoryview(data)
                while len(view):
                    try:
                        n = os.write(self.fd, view)
                    except OSError as e:
                        if e.errno == errno.EINTR:
                            continue
                        raise
                    view = view[n:]
            except Exception:
                # Reader went away (EPIPE) or fd closed: stop writing, keep the run going.
                self.fd = None


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'notification'
    CALLBACK_NAME = 'playform_events'
    CALLBACK_NEEDS_ENABLED = True
    CALLBACK_NEEDS_WHITELIST = True  # ansible-core < 2.11 spelling

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self._sink = None
        self._errors = 0
        self._play_batches = {}
        self._strategy = None
        self._playbook = None
        self._tls = threading.local()
        try:
            self._sink = _Sink()
        except Exception:
            self._sink = None
        if self._sink is None or not self._sink.enabled:
            # Nothing to write to: behave as a disabled plugin (no callbacks at all).
            self.disabled = True

    # ------------------------------------------------------------------ plumbing

    def _emit(self, etype, **fields):
        if self._sink is None or not self._sink.enabled:
            return
        ts = getattr(self._tls, 'ts', None)
        event = {'v': EVENTS_VERSION, 'type': etype, 'ts': ts if ts is not None else time.time()}
        for key, value in fields.items():
            if value is not None:
                event[key] = value
        self._sink.write_line(json.dumps(event, ensure_ascii=False, separators=(',', ':'), default=_text))

    def _error(self, where, exc):
        self._errors += 1
        if self._errors > MAX_ERROR_EVENTS:
            return
        try:
            self._emit('plugin_error', where=where, error=_text(type(exc).__name__, 100),
                       message=_text(exc, TEXT_MAX))
        except Exception:
            pass

    def _safe(self, where, fn, *args):
        # The time is taken on entry, before any work, to stay close to profile_tasks' clock.
        # Callbacks come from the main thread and the results thread: keep it thread-local.
        self._tls.ts = time.time()
        try:
            fn(*args)
        except Exception as exc:  # never let the playbook see our errors
            self._error(where, exc)
        finally:
            self._tls.ts = None

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _is_include(task):
        try:
            return TaskInclude is not None and isinstance(task, TaskInclude)
        except Exception:
            return False

    @staticmethod
    def _delegate(result):
        task = result._task
        host = result._host.get_name()
        delegate = getattr(task, 'delegate_to', None)
        if delegate and delegate != host:
            return _text(delegate, TEXT_MAX)
        return None

    def _item_label(self, res):
        if not isinstance(res, dict):
            return None
        if res.get('_ansible_no_log', False):
            return None
        label = res.get('_ansible_item_label', res.get('item'))
        if label is None:
            return None
        return _text(label, TEXT_MAX)

    @staticmethod
    def _is_loop_summary(result):
        # The display prints no line for a loop's own result (only its items), see
        # default.py: `if result._task.loop and 'results' in result._result`.
        try:
            return bool(result._task.loop) and isinstance(result._result, dict) and 'results' in result._result
        except Exception:
            return False

    def _host_result(self, result, status, ignored=False):
        task = result._task
        res = result._result if isinstance(result._result, dict) else {}
        loop = self._is_loop_summary(result)
        fields = dict(
            task=task._uuid,
            host=result._host.get_name(),
            status=status,
            changed=bool(res.get('changed', False)),
            delegate=self._delegate(result),
        )
        if ignored:
            fields['ignored'] = True
        if loop:
            fields['loop'] = True
        if self._is_include(task):
            fields['include'] = True
        self._emit('task_result', **fields)

    def _item_result(self, result, status):
        res = result._result if isinstance(result._result, dict) else {}
        fields = dict(
            task=result._task._uuid,
            host=result._host.get_name(),
            status=status,
            changed=bool(res.get('changed', False)),
            delegate=self._delegate(result),
            item=self._item_label(res),
        )
        if self._is_include(result._task):
            fields['include'] = True
        self._emit('item_result', **fields)

    def _task_start(self, task, kind):
        # At this point the strategy has templated task.name for the first host (linear),
        # so get_name() is what profile_tasks records and what the banner shows (stripped).
        name = _text(task.get_name()) or u''
        fields = dict(
            task=task._uuid,
            name=name,
            kind=kind,
            action=_text(getattr(task, 'action', None), TEXT_MAX),
        )
        if name.strip() != name:
            fields['display_name'] = name.strip()
        if self._is_include(task):
            fields['include'] = True
        self._emit('task_start', **fields)

    # ------------------------------------------------------------------ playbook / play

    def _on_start(self, playbook):
        name = getattr(playbook, '_file_name', None)
        self._playbook = _text(os.path.basename(name)) if name else None
        self._emit('playbook_start', playbook=self._playbook)

    def v2_playbook_on_start(self, playbook):
        self._safe('v2_playbook_on_start', self._on_start, playbook)

    def _on_play_start(self, play):
        uuid = getattr(play, '_uuid', None)
        batch = self._play_batches.get(uuid, 0) + 1
        self._play_batches[uuid] = batch
        pattern = getattr(play, 'hosts', None)
        if isinstance(pattern, (list, tuple)):
            pattern = ','.join(_text(p) or '' for p in pattern)
        self._strategy = _text(getattr(play, 'strategy', None))
        batch_hosts = None
        try:
            vm = play.get_variable_manager()
            inventory = getattr(vm, '_inventory', None)
            if inventory is not None:
                hosts = inventory.get_hosts(play.hosts, order=play.order)
                batch_hosts = [h.get_name() for h in hosts]
        except Exception:
            batch_hosts = None
        fields = dict(
            play=uuid,
            name=_text(play.get_name().strip()),
            pattern=_text(pattern),
            batch=batch,
            strategy=self._strategy,
            check_mode=bool(getattr(play, 'check_mode', False)) or None,
        )
        if batch_hosts is not None:
            fields['batch_size'] = len(batch_hosts)
            fields['batch_hosts'] = batch_hosts[:MAX_BATCH_HOSTS]
        self._emit('play_start', **fields)

    def v2_playbook_on_play_start(self, play):
        self._safe('v2_playbook_on_play_start', self._on_play_start, play)

    def v2_playbook_on_no_hosts_matched(self):
        self._safe('v2_playbook_on_no_hosts_matched', self._emit, 'no_hosts_matched')

    def v2_playbook_on_no_hosts_remaining(self):
        self._safe('v2_playbook_on_no_hosts_remaining', self._emit, 'no_hosts_remaining')

    # ------------------------------------------------------------------ tasks

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._safe('v2_playbook_on_task_start', self._task_start, task, 'task')

    def v2_playbook_on_handler_task_start(self, task):
        self._safe('v2_playbook_on_handler_task_start', self._task_start, task, 'handler')

    def v2_playbook_on_cleanup_task_start(self, task):
        self._safe('v2_playbook_on_cleanup_task_start', self._task_start, task, 'cleanup')

    def _on_include(self, included_file):
        task = getattr(included_file, '_task', None)
        hosts = [h.get_name() for h in getattr(included_file, '_hosts', [])]
        self._emit(
            'include',
            task=getattr(task, '_uuid', None),
            file=_text(getattr(included_file, '_filename', None), TEXT_MAX),
            hosts=hosts,
            item=self._item_label(getattr(included_file, '_vars', None) or {}),
        )

    def v2_playbook_on_include(self, included_file):
        self._safe('v2_playbook_on_include', self._on_include, included_file)

    # ------------------------------------------------------------------ results

    def v2_runner_on_ok(self, result):
        self._safe('v2_runner_on_ok', self._host_result, result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._safe('v2_runner_on_failed', self._host_result, result, 'failed', ignore_errors)

    def v2_runner_on_skipped(self, result):
        self._safe('v2_runner_on_skipped', self._host_result, result, 'skipped')

    def _on_unreachable(self, result):
        self._host_result(result, 'unreachable', bool(getattr(result._task, 'ignore_unreachable', False)))

    def v2_runner_on_unreachable(self, result):
        self._safe('v2_runner_on_unreachable', self._on_unreachable, result)

    def v2_runner_item_on_ok(self, result):
        self._safe('v2_runner_item_on_ok', self._item_result, result, 'ok')

    def v2_runner_item_on_failed(self, result):
        self._safe('v2_runner_item_on_failed', self._item_result, result, 'failed')

    def v2_runner_item_on_skipped(self, result):
        self._safe('v2_runner_item_on_skipped', self._item_result, result, 'skipped')

    def _on_retry(self, result):
        res = result._result if isinstance(result._result, dict) else {}
        attempts = res.get('attempts')
        retries = res.get('retries')
        self._emit(
            'retry',
            task=result._task._uuid,
            host=result._host.get_name(),
            attempts=attempts if isinstance(attempts, int) else None,
            retries=retries if isinstance(retries, int) else None,
        )

    def v2_runner_retry(self, result):
        self._safe('v2_runner_retry', self._on_retry, result)

    def _on_file_diff(self, result):
        # What the default stdout callback's v2_on_file_diff prints: a loop's changed items'
        # diffs, else the changed result's. A no_log result is censored before it gets here.
        res = result._result if isinstance(result._result, dict) else {}
        if result._task.loop and isinstance(res.get('results'), list):
            shown = [item['diff'] for item in res['results'] if isinstance(item, dict) and item.get('diff') and item.get('changed', False)]
        elif res.get('diff') and res.get('changed', False):
            shown = [res['diff']]
        else:
            shown = []
        text = u''.join(_text(self._get_diff(diff)) or u'' for diff in shown)
        text = ANSI_SGR.sub(u'', text)
        if not text.strip():
            return
        self._emit('diff', task=result._task._uuid, host=result._host.get_name(), diff=_text(text, TEXT_MAX))

    def v2_on_file_diff(self, result):
        self._safe('v2_on_file_diff', self._on_file_diff, result)

    # ------------------------------------------------------------------ end

    def _on_stats(self, stats):
        rows = []
        for host in sorted(stats.processed.keys()):
            t = stats.summarize(host)
            rows.append(dict(
                host=host,
                ok=int(t.get('ok', 0)),
                changed=int(t.get('changed', 0)),
                unreachable=int(t.get('unreachable', 0)),
                failed=int(t.get('failures', 0)),
                skipped=int(t.get('skipped', 0)),
                rescued=int(t.get('rescued', 0)),
                ignored=int(t.get('ignored', 0)),
            ))
        custom, custom_error = self._custom_stats(stats)
        self._emit('stats', hosts=rows, custom=custom, custom_error=custom_error)
        # Ansible has no "playbook finished" callback: v2_playbook_on_stats is the last one
        # for each playbook file, so the end is announced right after it.
        self._emit('playbook_end', playbook=self._playbook)

    @staticmethod
    def _custom_stats(stats):
        """What set_stats gathered (stats.custom: '_run' for the run, or per host), as JSON, or
        why it is not kept (over ARTIFACTS_MAX). None, None when the playbook set none."""
        custom = getattr(stats, 'custom', None) or {}
        if not custom:
            return None, None
        text = json.dumps(custom, ensure_ascii=False, separators=(',', ':'), default=_text)
        size = len(text.encode('utf-8'))
        if size > ARTIFACTS_MAX:
            return None, 'set_stats data of %d bytes is over the %d-byte cap (1 MiB): not kept' % (size, ARTIFACTS_MAX)
        return json.loads(text), None

    def v2_playbook_on_stats(self, stats):
        self._safe('v2_playbook_on_stats', self._on_stats, stats)
