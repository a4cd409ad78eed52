import { useEffect, useRef, useState } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';

import type { ChatMessage } from '../../api/client';
import { Button } from '../../components/button';
import { contentText } from '../../components/chat';
import { CodeEditor } from '../../components/code-editor';
import { Picker } from '../../components/fields';
import {
  addMessage,
  cardText,
  messagesFromJson,
  messagesToJson,
  moveMessage,
  openToolCalls,
  removeMessage,
  rolesFor,
  withRole,
  withText,
} from './message-list';

let nextKey = 0;
const freshKeys = (count: number) => Array.from({ length: count }, () => `m${nextKey++}`);

/**
 * The template's messages, chat-style (a card each: role, text with Handlebars highlighted, move
 * up or down, remove; add one) or as the raw JSON of the same list. Edits in either view are the
 * other's: the JSON text is parsed as it is typed; while it is not a valid list of messages the
 * problem is shown, the text kept, the chat view unavailable until it is fixed or the JSON edits
 * are discarded, and `onProblem` tells the screen (a run or a save would use the last valid list).
 */
export function MessageEditor({
  messages,
  onChange,
  onProblem,
}: {
  messages: ChatMessage[];
  onChange: (messages: ChatMessage[]) => void;
  onProblem: (problem: string | null) => void;
}) {
  const [view, setView] = useState<'chat' | 'json'>('chat');
  const [text, setText] = useState(() => messagesToJson(messages));
  const [problem, setProblem] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  // Stable keys follow the cards as they move, so focus stays on the moved card's button.
  const keys = useRef<string[]>(freshKeys(messages.length));
  if (keys.current.length !== messages.length) keys.current = freshKeys(messages.length);

  const report = (next: string | null) => {
    setProblem(next);
    onProblem(next);
  };
  // A change from outside (a card, a reset) while the JSON view shows valid text: show the new list.
  useEffect(() => {
    if (problem === null && messagesToJson(messagesFromJson(text).messages ?? []) !== messagesToJson(messages))
      setText(messagesToJson(messages));
  }, [messages]);

  const editJson = (next: string) => {
    setText(next);
    const parsed = messagesFromJson(next);
    report(parsed.problem);
    if (parsed.messages) onChange(parsed.messages);
  };
  const change = (next: ChatMessage[], nextKeys: string[], announcement: string) => {
    keys.current = nextKeys;
    setSaid(announcement);
    onChange(next);
  };

  return (
    <div className="message-list-editor">
      <Tabs selectedKey={view} onSelectionChange={(key) => setView(key as 'chat' | 'json')} disabledKeys={problem ? ['chat'] : []}>
        <TabList aria-label="Template view" className="tabs">
          <Tab id="chat">As chat</Tab>
          <Tab id="json">As JSON</Tab>
        </TabList>
        <TabPanel id="chat">
          <ol className="message-cards" aria-label="Template messages">
            {messages.map((message, index) => (
              <MessageCard
                key={keys.current[index]}
                messages={messages}
                index={index}
                onChange={(next, announcement) => change(next, keys.current, announcement)}
                onMove={(by) => {
                  const to = index + by;
                  if (to < 0 || to >= messages.length) return setSaid(`Message ${index + 1} is already the ${by < 0 ? 'first' : 'last'}.`);
                  change(
                    moveMessage(messages, index, by),
                    moveMessage(keys.current, index, by),
                    `Message ${index + 1} moved to ${to + 1}.`,
                  );
                }}
                onRemove={() =>
                  change(
                    removeMessage(messages, index),
                    removeMessage(keys.current, index),
                    `Message ${index + 1} (${message.role}) removed.`,
                  )
                }
              />
            ))}
          </ol>
          {messages.length === 0 ? <p className="muted">No messages: a version needs at least one.</p> : null}
          <Button
            tone="secondary"
            onPress={() => {
              const next = addMessage(messages);
              change(next, [...keys.current, ...freshKeys(1)], `Message ${next.length} (${next[next.length - 1].role}) added.`);
            }}
          >
            Add a message
          </Button>
          <p className="sr-only" role="status">
            {said}
          </p>
        </TabPanel>
        <TabPanel id="json">
          <CodeEditor label="Template messages (JSON)" value={text} onChange={editJson} />
          {problem ? (
            <div role="alert" className="error error-box">
              <p>{problem}</p>
              <p className="small">Your text is kept: the chat view comes back once it is a valid list of messages.</p>
              <Button
                tone="secondary"
                small
                onPress={() => {
                  setText(messagesToJson(messages));
                  report(null);
                }}
              >
                Discard the JSON edits
              </Button>
            </div>
          ) : null}
        </TabPanel>
      </Tabs>
    </div>
  );
}

function MessageCard({
  messages,
  index,
  onChange,
  onMove,
  onRemove,
}: {
  messages: ChatMessage[];
  index: number;
  onChange: (messages: ChatMessage[], announcement: string) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const message = messages[index];
  const n = index + 1;
  const text = cardText(message);
  const calls = openToolCalls(messages, index);
  const answers = message.tool_call_id ?? '';
  return (
    <li className={`message-card ${message.role}`}>
      <div className="row">
        <Picker
          label={`Role of message ${n}`}
          labelHidden
          placeholder="Choose a role"
          items={rolesFor(messages, index)}
          value={message.role}
          onChange={(role) => onChange(withRole(messages, index, role as ChatMessage['role']), `Message ${n} is now ${role}.`)}
        />
        {message.role === 'tool' ? (
          <Picker
            label={`Tool call message ${n} answers`}
            labelHidden
            placeholder="Which call"
            items={answers && !calls.includes(answers) ? [answers, ...calls] : calls}
            value={answers}
            onChange={(id) =>
              onChange(
                messages.map((m, i) => (i === index ? { ...m, tool_call_id: id } : m)),
                `Message ${n} answers ${id}.`,
              )
            }
          />
        ) : null}
        <span className="card-actions">
          <Button tone="secondary" small aria-label={`Move message ${n} up`} onPress={() => onMove(-1)}>
            Up
          </Button>
          <Button tone="secondary" small aria-label={`Move message ${n} down`} onPress={() => onMove(1)}>
            Down
          </Button>
          <Button tone="secondary" small aria-label={`Remove message ${n}`} onPress={onRemove}>
            Remove
          </Button>
        </span>
      </div>
      {text === null ? (
        <>
          <p className="muted small">This message is made of parts (text and images): edit it in the JSON view.</p>
          <p className="pre-wrap">{contentText(message.content)}</p>
        </>
      ) : (
        <CodeEditor
          template
          label={`Template message ${n} (${message.role})`}
          value={text}
          onChange={(content) => onChange(withText(messages, index, content), '')}
        />
      )}
      {(message.tool_calls ?? []).length > 0 ? (
        <p className="muted small">
          Calls {(message.tool_calls ?? []).map((call) => `${call.function.name} (${call.id})`).join(', ')}: edit the calls in the JSON
          view.
        </p>
      ) : null}
    </li>
  );
}
