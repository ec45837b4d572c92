// Images in a question: which files are images a model can be shown, and
// which served models read images (each server's own word, see
// backend/llm's discovery), for the Ask screen.
import type { Server } from './ask';

const imageExt = /\.(png|jpe?g|webp|gif)$/i;

/** Whether a file (by name) is an image rehome can show a model. */
export function isImage(name: string): boolean {
  return imageExt.test(name);
}

/** Whether the chosen model ("server|model") reads images, per its server. */
export function readsImages(servers: Server[], choice: string): boolean {
  const [server, model] = choice.split('|');
  return !!servers.find((s) => s.base_url === server)?.models.find((m) => m.id === model)?.vision;
}

/** The served models that read images, as "MODEL · SERVER". */
export function imageReaders(servers: Server[]): string[] {
  return servers.flatMap((s) => s.models.filter((m) => m.vision).map((m) => `${m.id} · ${s.name}`));
}
