import type { ReactNode } from 'react';
import {
  Button,
  Checkbox,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Radio,
  RadioGroup,
  Select,
  SelectValue,
  Text,
  TextArea,
  TextField,
} from 'react-aria-components';

/** An item of a picker: its id, and the text shown when it differs from the id. */
export type PickerItem = string | { id: string; label: string };

const idOf = (item: PickerItem) => (typeof item === 'string' ? item : item.id);
const labelOf = (item: PickerItem) => (typeof item === 'string' ? item : item.label);

/**
 * The console's one select: a labelled field (or one named by `aria-label` when a visible label
 * would repeat the row it sits in) that reads as a field, not a button: a chevron, the chosen
 * item, or `placeholder` while nothing is chosen (never React Aria's "Select an item"). The open
 * list marks the chosen item with a check (and `aria-selected`), the focused one with a tint.
 */
export function Picker({
  label,
  labelHidden = false,
  items,
  value,
  onChange,
  placeholder = 'Choose one',
  className,
}: {
  label: string;
  /** Names the picker for assistive technology only (`aria-label`), without a visible label. */
  labelHidden?: boolean;
  items: readonly PickerItem[];
  value: string;
  onChange: (id: string) => void;
  placeholder?: string;
  /** `field` (a label over the picker) unless the label is hidden. */
  className?: string;
}) {
  return (
    <Select
      {...(labelHidden ? { 'aria-label': label } : {})}
      selectedKey={value || null}
      onSelectionChange={(key) => key !== null && onChange(String(key))}
      placeholder={placeholder}
      className={className ?? (labelHidden ? undefined : 'field')}
    >
      {labelHidden ? null : <Label>{label}</Label>}
      <Button className="select-button">
        <SelectValue className="select-value" />
        <span className="chevron" aria-hidden="true">
          ▾
        </span>
      </Button>
      <Popover className="popover">
        <ListBox className="listbox">
          {items.map((item) => (
            <ListBoxItem key={idOf(item)} id={idOf(item)} textValue={labelOf(item)} className="option">
              {({ isSelected }) => (
                <>
                  <span className="check" aria-hidden="true">
                    {isSelected ? '✓' : ''}
                  </span>
                  {labelOf(item)}
                </>
              )}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}

/** Radio buttons in a row, each with a visible dot that fills when it is the chosen one. */
export function Choices<T extends string>({
  label,
  items,
  value,
  onChange,
  className,
}: {
  label: string;
  items: readonly { id: T; label: ReactNode }[];
  value: T;
  onChange: (id: T) => void;
  className?: string;
}) {
  return (
    <RadioGroup
      value={value}
      onChange={(next) => onChange(next as T)}
      orientation="horizontal"
      className={`field choices${className ? ` ${className}` : ''}`}
    >
      <Label>{label}</Label>
      {items.map((item) => (
        <Radio key={item.id} value={item.id}>
          {item.label}
        </Radio>
      ))}
    </RadioGroup>
  );
}

/**
 * The console's text field: a label over an input, or over a text area when `rows` is given
 * (`json` sets it in the code font). `labelHidden` names it for assistive technology only, where
 * the row it sits in already says what it is; `description` is a hint under it.
 */
export function TextInput({
  label,
  labelHidden = false,
  value,
  onChange,
  rows,
  json = false,
  placeholder,
  description,
  className,
  type,
  inputMode,
  autoComplete,
  autoFocus,
  isRequired,
  isReadOnly,
  maxLength,
  min,
  max,
}: {
  label: string;
  labelHidden?: boolean;
  value: string;
  onChange: (value: string) => void;
  /** A text area of that many rows. */
  rows?: number;
  json?: boolean;
  placeholder?: string;
  description?: ReactNode;
  /** Added to `field`: `grow` takes the rest of a row. */
  className?: string;
  type?: 'text' | 'search' | 'email' | 'password' | 'number';
  inputMode?: 'text' | 'numeric' | 'decimal' | 'email' | 'search';
  autoComplete?: string;
  autoFocus?: boolean;
  isRequired?: boolean;
  isReadOnly?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
}) {
  return (
    <TextField
      value={value}
      onChange={onChange}
      type={type}
      inputMode={inputMode}
      autoComplete={autoComplete}
      autoFocus={autoFocus}
      isRequired={isRequired}
      isReadOnly={isReadOnly}
      maxLength={maxLength}
      {...(labelHidden ? { 'aria-label': label } : {})}
      className={className ? `field ${className}` : 'field'}
    >
      {labelHidden ? null : <Label>{label}</Label>}
      {rows ? (
        <TextArea rows={rows} placeholder={placeholder} className={json ? 'json' : undefined} />
      ) : (
        <Input placeholder={placeholder} min={min} max={max} />
      )}
      {description ? (
        <Text slot="description" className="muted small">
          {description}
        </Text>
      ) : null}
    </TextField>
  );
}

/** A checkbox with a visible box that fills when it is ticked; alone, or inside React Aria's CheckboxGroup (`value`). */
export function CheckboxField({
  children,
  isSelected,
  onChange,
  value,
}: {
  children: ReactNode;
  isSelected?: boolean;
  onChange?: (selected: boolean) => void;
  value?: string;
}) {
  return (
    <Checkbox isSelected={isSelected} onChange={onChange} value={value} className="checkbox">
      <span className="box" aria-hidden="true" />
      {children}
    </Checkbox>
  );
}
