import { scoreOfAnswer } from './grading';

describe("a model grader's answer as a score", () => {
  it('takes the first label the judge names, its first word first', () => {
    const labels = { correct: 1, partial: 0.5, incorrect: 0 };
    expect(scoreOfAnswer('Correct. The answer names Paris.', { labels, maxScore: 1 }).score).toBe(1);
    expect(scoreOfAnswer('incorrect: it says Rome', { labels, maxScore: 1 }).score).toBe(0);
    expect(scoreOfAnswer('I would say partial, not correct', { labels, maxScore: 1 }).score).toBe(0.5);
    expect(scoreOfAnswer('no idea', { labels, maxScore: 1 })).toEqual({ score: 0, reason: 'the judge named none of the labels: no idea' });
  });

  it('takes the first number, divided by maxScore and clamped to [0, 1]', () => {
    expect(scoreOfAnswer('8 - mostly right', { maxScore: 10 }).score).toBe(0.8);
    expect(scoreOfAnswer('0.25', { maxScore: 1 }).score).toBe(0.25);
    expect(scoreOfAnswer('42', { maxScore: 10 }).score).toBe(1);
    expect(scoreOfAnswer('-3', { maxScore: 1 }).score).toBe(0);
    expect(scoreOfAnswer('', { maxScore: 1 }).reason).toBe('the judge gave no score: (empty)');
  });
});
