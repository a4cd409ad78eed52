/** How the usage charts name their UTC buckets: in English, the same in every locale and time zone. */
const DAY = 86_400;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const hour = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;

/** A bucket's start (Unix seconds, UTC) as the axis writes it: `14 Nov` for days, `13:00` for hours (`14 Nov` at midnight). */
export function tickLabel(start: number, bucket: 'hour' | 'day'): string {
  const date = new Date(start * 1000);
  if (bucket === 'day' || start % DAY === 0) return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
  return hour(date.getUTCHours());
}

/** A bucket as the legend names it: `Fri 14 Nov 2025` for a day, `14 Nov 2025, 13:00–14:00 UTC` for an hour. */
export function bucketLabel(start: number, bucket: 'hour' | 'day'): string {
  const date = new Date(start * 1000);
  const day = `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
  if (bucket === 'day') return `${WEEKDAYS[date.getUTCDay()]} ${day}`;
  return `${day}, ${hour(date.getUTCHours())}–${hour(date.getUTCHours() + 1)} UTC`;
}
