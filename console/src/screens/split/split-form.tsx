import { useState } from 'react';

import type { Version } from '../../api/client';
import { Button } from '../../components/button';
import { Choices, Picker, TextInput } from '../../components/fields';
import { Card, ConfirmButton, Notice } from '../../components/ui';
import {
  armProblems,
  type DeployBody,
  type Deployment,
  type DraftArm,
  type DraftSticky,
  draftStickyOf,
  droppedRules,
  initialArms,
  MAX_ARMS,
  shareText,
  splitBody,
  stickyByOf,
} from './split-plan';

const STICKY_CHOICES = [
  { id: 'thread', label: 'thread' },
  { id: 'user', label: 'user' },
  { id: 'metadata', label: 'a metadata field' },
  { id: 'none', label: 'none (a fresh draw per call)' },
] as const;

/**
 * "Set up a split": each arm's version and weight (the first arm is the control) and what keeps a
 * caller on its arm; sent as one deployment, confirmed first. Rules are not edited here (the API
 * and parley.yaml set them); the current split's rules are kept for the arms that stay.
 */
export function SplitForm({
  environment,
  current,
  versions,
  pending,
  onDeploy,
}: {
  environment: string;
  current: Deployment | undefined;
  versions: Version[];
  pending: boolean;
  onDeploy: (body: DeployBody) => void;
}) {
  const [arms, setArms] = useState<DraftArm[]>(() =>
    initialArms(
      current,
      versions.map((v) => v.version),
    ),
  );
  const [sticky, setSticky] = useState<DraftSticky>(() => draftStickyOf(current?.stickyBy));
  const problems = armProblems(arms, sticky);
  const total = arms.reduce((sum, arm) => sum + (Number(arm.weight) || 0), 0);
  const dropped = droppedRules(arms, current);
  const kept = (current?.rules?.length ?? 0) - dropped.length;
  const change = (index: number, next: Partial<DraftArm>) =>
    setArms((all) => all.map((arm, i) => (i === index ? { ...arm, ...next } : arm)));
  const unused = versions.map((v) => String(v.version)).filter((v) => !arms.some((arm) => arm.version === v));
  const items = versions.map((v) => ({ id: String(v.version), label: `v${v.version}${v.message ? ` — ${v.message}` : ''}` }));

  return (
    <Card title={`Set up a split in ${environment}`}>
      <p className="muted small">
        Each call goes to an arm in proportion to its weight (0 to {MAX_WEIGHT_TEXT}; 0 stops the arm). The first arm is the control the
        others are compared with. Every client of {environment} follows the split at once, without a code change.
      </p>
      {arms.map((arm, index) => (
        <fieldset key={index} className="row arm-fields">
          <legend>
            Arm {index + 1}
            {index === 0 ? ' (control)' : ''}
          </legend>
          <Picker
            label="Version"
            placeholder="Choose a version"
            items={items}
            value={arm.version}
            onChange={(version) => change(index, { version })}
          />
          <TextInput
            label="Weight"
            value={arm.weight}
            onChange={(weight) => change(index, { weight })}
            className="weight-field"
            inputMode="numeric"
          />
          <span className="muted share" aria-label={`Arm ${index + 1}'s share of the calls`}>
            {shareText(Number(arm.weight) || 0, total)}
          </span>
          {arms.length > 1 ? (
            <Button tone="secondary" small onPress={() => setArms((all) => all.filter((_, i) => i !== index))}>
              Remove arm {index + 1}
            </Button>
          ) : null}
        </fieldset>
      ))}
      <p className="row">
        <Button
          tone="secondary"
          isDisabled={arms.length >= MAX_ARMS || unused.length === 0}
          onPress={() => setArms((all) => [...all, { version: unused[0] ?? '', weight: '0' }])}
        >
          Add an arm
        </Button>
      </p>
      <Choices
        label="Keep each caller on one arm by"
        items={STICKY_CHOICES}
        value={sticky.kind}
        onChange={(kind) => setSticky((prev) => ({ ...prev, kind }))}
      />
      {sticky.kind === 'metadata' ? (
        <TextInput
          label="Metadata field"
          value={sticky.key}
          onChange={(key) => setSticky((prev) => ({ ...prev, key }))}
          placeholder="customer"
        />
      ) : null}
      <p className="muted small">
        {sticky.kind === 'thread'
          ? "An assistant's thread (or a /v1 conversation) keeps its arm turn after turn; a call without a thread is drawn at random."
          : sticky.kind === 'user'
            ? "The caller's user (/v1's user field, metadata.user on the spec's routes) keeps its arm; a call without one is drawn at random."
            : sticky.kind === 'metadata'
              ? 'Calls with the same value of this metadata field keep their arm; a call without it is drawn at random.'
              : 'Every call is drawn afresh.'}
      </p>
      {current?.rules?.length ? (
        <Notice className="small">
          The current split has {current.rules.length} rule{current.rules.length === 1 ? '' : 's'} (calls matched by user or metadata):{' '}
          {kept} kept{dropped.length ? `, ${dropped.length} dropped because its version is no longer an arm` : ''}. Rules are set through
          the API or parley.yaml.
        </Notice>
      ) : null}
      {problems.length ? (
        <ul className="error-text small" aria-label="What to fix before deploying">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      ) : null}
      <ConfirmButton
        label={`Deploy the split to ${environment}`}
        title={`Deploy this split to ${environment}?`}
        confirmLabel={`Deploy to ${environment}`}
        isDisabled={problems.length > 0 || pending}
        onConfirm={() => onDeploy(splitBody(environment, arms, sticky, current))}
      >
        <ul>
          {arms.map((arm, index) => (
            <li key={index}>
              v{arm.version}: weight {arm.weight} ({shareText(Number(arm.weight) || 0, total)} of the calls)
              {index === 0 ? ', the control' : ''}
            </li>
          ))}
        </ul>
        <p>
          Sticky by {stickyByOf(sticky)}. It is served at once in {environment}, for every caller; the deployment it replaces stays in the
          history.
        </p>
      </ConfirmButton>
    </Card>
  );
}

const MAX_WEIGHT_TEXT = '10,000';
