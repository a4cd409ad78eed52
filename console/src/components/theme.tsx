import { useSyncExternalStore } from 'react';
import { Label, Radio, RadioGroup } from 'react-aria-components';

/**
 * Light, dark, or the system's (docs/console.md, "Dark mode"). The choice is kept in localStorage
 * and set as `data-theme` on <html> (absent for "system", so styles.css's prefers-color-scheme
 * block applies); main.tsx applies it before the first render, as the CSP allows no inline script.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'parley.theme';
const listeners = new Set<() => void>();
const systemDark = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;

export function storedTheme(): ThemeChoice {
  try {
    const stored = localStorage.getItem(KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    // Storage refused (a locked-down browser): the system's theme.
    return 'system';
  }
}

/** Sets the attribute styles.css reads; `remember` also stores the choice for the next visit. */
export function applyTheme(choice: ThemeChoice, remember = false): void {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
  if (remember) {
    try {
      if (choice === 'system') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, choice);
    } catch {
      // Not remembered: the choice still holds for this page.
    }
  }
  listeners.forEach((listener) => listener());
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  systemDark?.addEventListener('change', listener);
  return () => {
    listeners.delete(listener);
    systemDark?.removeEventListener('change', listener);
  };
}

const snapshot = () => `${storedTheme()}:${systemDark?.matches ? 'dark' : 'light'}`;

/** The choice and the theme in effect (the system's when the choice is "system"), re-rendering when either changes. */
export function useTheme(): { choice: ThemeChoice; dark: boolean } {
  const [choice, system] = useSyncExternalStore(subscribe, snapshot).split(':') as [ThemeChoice, string];
  return { choice, dark: choice === 'dark' || (choice === 'system' && system === 'dark') };
}

/** A CSS variable of the theme in effect (styles.css holds plain colours), for a canvas: uPlot draws its axes on one. */
export function themeColour(variable: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(variable).trim();
}

/**
 * What a uPlot chart takes from the theme in effect: its axes' text, grid and tick colours, and
 * the series colours (--series-1 to --series-6). A chart reads them when drawn, and is drawn again
 * when `useTheme().dark` changes.
 */
export function chartTheme() {
  const line = themeColour('--line');
  return {
    axis: { stroke: themeColour('--fg'), grid: { stroke: line }, ticks: { stroke: line } },
    /** The fill of a series' points: the page's background. */
    background: themeColour('--bg'),
    colours: [1, 2, 3, 4, 5, 6].map((n) => themeColour(`--series-${n}`)),
  };
}

/** The header's light / dark / system switch. */
export function ThemeToggle() {
  const { choice } = useTheme();
  return (
    <RadioGroup value={choice} onChange={(next) => applyTheme(next as ThemeChoice, true)} orientation="horizontal" className="segmented">
      <Label className="sr-only">Theme</Label>
      {(['system', 'light', 'dark'] as const).map((id) => (
        <Radio key={id} value={id} className="segment">
          {id === 'system' ? 'System' : id === 'light' ? 'Light' : 'Dark'}
        </Radio>
      ))}
    </RadioGroup>
  );
}
