import type { ReactNode } from 'react';

/**
 * The console's one table: a caption (for screen readers), a header row of `columns` (a falsy
 * column is left out, so a screen can show one only when it applies), and `children` as the body
 * rows. It sits in a box that scrolls sideways on a narrow screen (docs/console.md, "Small screens")
 * so the page itself never does; the box is focusable, so the keyboard can scroll it too.
 */
export function DataTable({
  label,
  columns,
  children,
  className,
}: {
  label: string;
  columns: readonly ReactNode[];
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      <table className={className ? `table ${className}` : 'table'}>
        <caption className="sr-only">{label}</caption>
        <thead>
          <tr>
            {columns
              .filter((column) => column !== null && column !== undefined && column !== false && column !== '')
              .map((column, index) => (
                <th key={index} scope="col">
                  {column}
                </th>
              ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
