/**
 * Transcript text printed to a terminal is sanitised: a transcript can carry escape sequences
 * (tool output, fetched pages) that would act on the user's terminal when shown — OSC 52 writes
 * the clipboard, CSI 2J clears the screen, OSC 8 hides link targets. ESC/CSI/OSC/DCS sequences
 * are removed and the other C0/C1 controls (but tab and newline) become a visible `�`.
 */
const SEQUENCES = /\u001b\][\s\S]*?(?:\u0007|\u001b\\|$)|\u009d[\s\S]*?(?:\u0007|\u009c|$)|\u001b[P^_X][\s\S]*?(?:\u001b\\|$)|\u001b\[[0-?]*[ -/]*[@-~]?|\u009b[0-?]*[ -/]*[@-~]?|\u001b[ -/]*[0-~]?/g;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function terminalSafe(text: string): string {
  return text.replace(SEQUENCES, '').replace(CONTROLS, '\ufffd');
}
