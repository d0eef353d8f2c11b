import type { DemoStep, DemoTour } from './demo-step.js';
import { agentSteps } from './demo-agent-steps.js';
import { checkSteps } from './demo-check-steps.js';
import { mirrorSteps } from './demo-mirror-steps.js';
import { pushSteps } from './demo-push-steps.js';
import { readSteps } from './demo-read-steps.js';

// The walk-through of `tds demo`, one group of steps per main job, in the order a newcomer meets them.

export function demoSteps(tour: DemoTour): DemoStep[] {
  return [...readSteps(tour), ...pushSteps(tour), ...mirrorSteps(tour), ...checkSteps(tour), ...agentSteps()];
}
