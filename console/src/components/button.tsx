import type { ReactNode } from 'react';
import { Button as AriaButton, type ButtonProps } from 'react-aria-components';
import { Link, type LinkProps } from 'react-router';

/**
 * The console's buttons (docs/console.md, "Design system"): `primary` (the accent: the one thing a
 * form or dialog is for), `secondary` (outlined: everything else), `danger` (red: only inside a
 * confirmation of an act that cannot be undone); `small` in table rows and editor toolbars.
 */
export type Tone = 'primary' | 'secondary' | 'danger';

export function buttonClass(tone: Tone = 'primary', small = false, className?: string): string {
  return ['button', tone === 'primary' ? null : tone, small ? 'small' : null, className].filter(Boolean).join(' ');
}

type Look = { tone?: Tone; small?: boolean; className?: string };

/** React Aria's button (keyboard, press and focus handling) in one of the tones. */
export function Button({ tone, small, className, ...props }: Omit<ButtonProps, 'className'> & Look) {
  return <AriaButton {...props} className={buttonClass(tone, small, className)} />;
}

/** A link that reads as a button: it goes somewhere rather than doing something. */
export function ButtonLink({ tone, small, className, ...props }: Omit<LinkProps, 'className'> & Look & { children: ReactNode }) {
  return <Link {...props} className={buttonClass(tone, small, className)} />;
}
