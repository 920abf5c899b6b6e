import { formatDuration } from '../progress-display.js';
import type { Checked, PushSubscriptionStatus, StatusReport } from './gather-status.js';

const shown = <T>(checked: Checked<T>, render: (value: T) => string) => (checked.ok ? render(checked.value) : `unknown: ${checked.problem}`);

/** `ossn status` as one screen of plain text. */
export function renderStatus(report: StatusReport, now = new Date()): string {
  const lines = [`ossn status at ${now.toISOString()}`, '', 'servers'];
  for (const { name, answers } of report.servers) lines.push(`  ${name.padEnd(60)} ${answers.ok ? answers.value : `DOES NOT ANSWER: ${answers.problem}`}`);
  lines.push('', 'read models');
  lines.push(
    `  active version     ${shown(report.active, (a) => `${a.version}${a.activatedAt.getTime() > 0 ? ` since ${a.activatedAt.toISOString()}` : ' (READ_MODEL_VERSION; no replay yet)'}${a.previous !== undefined ? `; previous ${a.previous} kept` : ''}`)}`,
  );
  lines.push(
    `  building           ${shown(report.build, (b) =>
      b
        ? report.active.ok && report.active.value.version === b.record.version
          ? `version ${b.record.version} is active, its times NOT SETTLED (a replay stopped after its switch): run ossn replay to finish it`
          : `version ${b.record.version} since ${b.record.startedAt.toISOString()}: ${b.done.toLocaleString('en-US')} of ${b.total.toLocaleString('en-US')} events (ossn replay resumes it)` +
          (b.record.handoverUntil ? `; switching: version ${b.record.previous} held (its projectors not writing) until ${b.record.handoverUntil.toISOString()} unless renewed` : '')
        : 'nothing',
    )}`,
  );
  lines.push('', 'projector');
  if (report.lag.ok) {
    const { group, state, partitions, members, unassigned, otherTopics } = report.lag.value;
    lines.push(`  group              ${group}: ${members.length === 0 ? 'NO MEMBER (is ossn projector running?)' : `${members.join(', ')}${state === 'Stable' ? '' : ` (${state})`}`}`);
    if (unassigned.length > 0) lines.push(`  NOT PROJECTED      partitions ${unassigned.join(',')} are assigned to no member reading ${report.topic}`);
    for (const { member, topics } of otherTopics) {
      lines.push(`  OTHER TOPIC        ${member} reads ${topics.join(', ')}: a projector of another topic in this group; give it a group of its own (OSSN_CONSUMER_GROUP)`);
    }
    const total = partitions.reduce((sum, p) => sum + p.lag, 0);
    lines.push(`  lag                ${total.toLocaleString('en-US')} events; by partition ${partitions.map((p) => `${p.partition}:${p.lag}`).join(' ')}`);
  } else {
    lines.push(`  lag                unknown: ${report.lag.problem}`);
  }
  lines.push('', 'dead letters');
  lines.push(`  ${shown(report.deadLetters, (d) => `${d.lastHour} in the last hour, ${d.all} in all (ossn dlq list)`)}`);
  lines.push('', 'credentials');
  lines.push(`  ${shown(report.credentials, (c) => `${c.active} active, ${c.disabled} disabled`)}`);
  lines.push('', 'push subscriptions');
  if (!report.push.ok) lines.push(`  unknown: ${report.push.problem}`);
  else if (report.push.value.length === 0) lines.push('  none (ossn push add)');
  else for (const subscription of report.push.value) lines.push(`  ${pushLine(subscription)}`);
  return `${lines.join('\n')}\n`;
}

/** One subscription: its state, deliveries, lag, and who pushes it; flagged when enabled and no pusher holds its lease. */
function pushLine(s: PushSubscriptionStatus): string {
  const lease = s.lease === null ? 'no lease' : `lease ${s.lease.owner} ${s.lease.live ? `(live until ${s.lease.until.toISOString()})` : `(lapsed at ${s.lease.until.toISOString()})`}`;
  const unworked = s.enabled && !s.lease?.live ? '; NOT PUSHED: no pusher holds its lease (is ossn pusher or ossn start running?)' : '';
  const parked = s.parked > 0 ? ' (ossn push parked)' : '';
  return `${s.id.padEnd(16)} ${(s.enabled ? 'enabled' : 'disabled').padEnd(9)} ${s.pending} pending, ${s.parked} parked${parked}, ${s.delivered} delivered; lag ${formatDuration(s.lagMs / 1000)}; ${lease}${unworked}`;
}
