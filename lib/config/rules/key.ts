/** The Pulumi config key a cross-field rule's problem names. */

export const cfg = (path: string): string => `platform:${path}`;
