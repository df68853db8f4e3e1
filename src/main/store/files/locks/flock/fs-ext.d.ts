// Minimal types for fs-ext@2.1.1, which ships none. Only what the writer locks use.
declare module 'fs-ext' {
  /** `nb` variants are LOCK_NB: they throw an Error with code 'EAGAIN'/'EWOULDBLOCK' when contended. */
  export type FlockFlag = 'sh' | 'ex' | 'shnb' | 'exnb' | 'un';

  /** flock(2) on `fd`; throws an errno Error (`code`, `errno`, `syscall: 'Flock'`). */
  export function flockSync(fd: number, flags: FlockFlag): void;
  export function flock(fd: number, flags: FlockFlag, callback: (error: NodeJS.ErrnoException | null) => void): void;

  const fsExt: {
    flockSync: typeof flockSync;
    flock: typeof flock;
  };
  export default fsExt;
}
