/**
 * What the optimizer may see of a task: H2's `optimizerView` (sealed checks and exact reference
 * answers removed — they count in the gate but their text must never reach the optimizer, or it
 * would learn the test instead of the skill).
 */
export { optimizerView as sealedFreeTask } from '../mine/view.js';
