// @ts-check
// One recording of the figures: each drawn picture (the figures composed, under a band that
// says the step) is scaled onto a canvas of the chosen width, at most `fps` times a second
// while the run trains in view, and goes to a WebM video (the browser's MediaRecorder, from
// the canvas's stream, one frame per picture) and/or an animated GIF (gif-worker.js), until
// the length's frames are taken or it is stopped. Both keep the time between the pictures,
// less the pauses. It reads no run: the figures hand it their pictures (ui/figures.js).

/** The formats a recording can save. */
export const RECORD_FORMATS = /** @type {const} */ (['webm', 'gif', 'both']);
/** @typedef {typeof RECORD_FORMATS[number]} RecordFormat */

/** The settings' allowed values, in words for messages. */
export const RECORD_LIMITS = { fps: [1, 30], width: [160, 1920], seconds: [1, 60] };

/**
 * What to record: the format, the frames a second, the video's width in pixels (its height
 * follows the figures' shape, even) and the length in seconds (so fps × seconds frames).
 * @typedef {{ format: RecordFormat, fps: number, width: number, seconds: number }} RecordSettings
 */

/** The WebM type the browser records, or null with the reason it cannot.
 * @returns {{ type: string, reason: string } | { type: null, reason: string }} */
export function webmSupport() {
  const canvas = typeof HTMLCanvasElement !== 'undefined' && 'captureStream' in HTMLCanvasElement.prototype;
  if (typeof MediaRecorder === 'undefined' || !canvas) {
    return { type: null, reason: 'this browser cannot record video from a canvas (it has no MediaRecorder or canvas stream)' };
  }
  const type = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'].find((t) => MediaRecorder.isTypeSupported(t));
  return type ? { type, reason: '' } : { type: null, reason: 'this browser records no WebM video' };
}

/** The first problem with a recording's settings, in words with the allowed range, or ''.
 * @param {RecordSettings} s */
export function settingsProblem(s) {
  if (!RECORD_FORMATS.includes(s.format)) return `Format: must be one of ${RECORD_FORMATS.join(', ')}, got “${String(s.format)}”`;
  /** @type {[keyof typeof RECORD_LIMITS, string][]} */
  const fields = [['fps', 'Frame rate (frames a second)'], ['width', 'Width (pixels)'], ['seconds', 'Length (seconds)']];
  for (const [key, words] of fields) {
    const [lo, hi] = RECORD_LIMITS[key];
    const v = s[key];
    if (!Number.isInteger(v) || v < lo || v > hi) return `${words}: must be a whole number from ${lo} to ${hi}, got ${String(v)}`;
  }
  return '';
}

/**
 * A saved recording: its files, the frames in each and the picture's size.
 * @typedef {{ files: { name: string, blob: Blob }[], frames: number, width: number, height: number }} Recorded
 */

export class Recording {
  /**
   * @param {RecordSettings} settings checked by `settingsProblem` first
   * @param {{ onProgress(): void, onDone(r: Recorded): void, onError(message: string): void, name: string }} o
   *   `onProgress`: a frame was taken; `name`: the files' name without its extension
   */
  constructor(settings, o) {
    const problem = settingsProblem(settings);
    if (problem) throw new RangeError(problem);
    /** @readonly */ this.settings = settings;
    /** @private */ this.o = o;
    /** The frames the length holds. @readonly */ this.wanted = settings.fps * settings.seconds;
    /** Frames taken. */ this.frames = 0;
    /** Whether it takes frames (until the length is reached or it is stopped). */ this.recording = true;
    /** Whether it has stopped and is making its files. */ this.saving = false;
    /** @private */ this.canvas = document.createElement('canvas');
    /** @private @type {CanvasRenderingContext2D | null} */ this.g = null;
    /** When the first frame was drawn (ms), and when the next may be. @private */
    this.start = 0;
    /** @private */ this.due = 0;
    /** @private @type {MediaRecorder | null} */ this.video = null;
    /** @private @type {Blob[]} */ this.videoParts = [];
    /** @private @type {CanvasCaptureMediaStreamTrack | null} */ this.track = null;
    /** @private @type {Worker | null} */ this.gif = null;
    /** @private @type {string} */ this.videoType = '';
    /** @private */ this.failed = false;
    /** The height of the band over the figures that says the step (pixels). @private */
    this.band = 0;
    /** Whether the run trains where it is seen: frames are taken, and both files' clocks
     * run, only then (a pause is left out of the recording). */
    this.live = false;
    /** When the recording was last paused (ms), and how long it has been paused in all. @private */
    this.pausedAt = 0;
    /** @private */ this.paused = 0;
    /** Frames sent to the GIF encoder that it has not finished. @private */
    this.encoding = 0;
    if (settings.format !== 'gif') {
      const support = webmSupport();
      if (!support.type) throw new Error(`WebM: ${support.reason}; choose GIF`);
      this.videoType = support.type;
    }
  }

  /** Whether a picture drawn at `now` (ms) would be taken: a frame is due. Half a display
   * frame early is on time (pictures come with the display's frames). @param {number} now */
  wants(now) {
    // A GIF encoder behind by more than a frame takes no more until it catches up: its
    // queue (a frame's pixels each) stays short, at the cost of a lower frame rate.
    return this.recording && this.live && this.encoding < 2 && (this.frames === 0 || now >= this.due - 8);
  }

  /** The run trains where it is seen (`live`), or not (paused, a hidden tab), from `now` (ms).
   * @param {boolean} live @param {number} now */
  setLive(live, now) {
    if (live === this.live) return;
    this.live = live;
    if (this.frames === 0 || !this.recording) return;
    if (!live) {
      this.pausedAt = now;
      if (this.video?.state === 'recording') this.video.pause();
    } else {
      this.paused += now - this.pausedAt;
      this.due += now - this.pausedAt;
      if (this.video?.state === 'paused') this.video.resume();
    }
  }

  /**
   * A picture the figures drew at `now` (ms), of the run at `step`: taken when a frame is
   * due, under a band that says the step large and `title` (what the run is).
   * @param {HTMLCanvasElement} picture @param {number} now @param {number} step @param {string} title
   */
  take(picture, now, step, title) {
    if (!this.wants(now)) return;
    try {
      this.draw(picture, now, step, title);
    } catch (err) {
      this.fail(String(/** @type {Error} */ (err).message ?? err));
    }
  }

  /** @private @param {HTMLCanvasElement} picture @param {number} now @param {number} step @param {string} title */
  draw(picture, now, step, title) {
    const interval = 1000 / this.settings.fps;
    if (this.frames === 0) this.begin(picture, now);
    this.due = Math.max(this.due + interval, now + interval / 2);
    const { canvas, band } = this;
    const g = /** @type {CanvasRenderingContext2D} */ (this.g);
    const style = getComputedStyle(document.body);
    g.fillStyle = style.backgroundColor || '#fff';
    g.fillRect(0, 0, canvas.width, canvas.height);
    const font = Math.round(band / 1.6);
    g.fillStyle = style.color || '#222';
    g.textBaseline = 'middle';
    g.font = `600 ${font}px ${style.fontFamily || 'sans-serif'}`;
    const stepText = `step ${step}`;
    g.fillText(stepText, font * 0.6, band / 2);
    g.font = `${Math.round(font * 0.8)}px ${style.fontFamily || 'sans-serif'}`;
    g.textAlign = 'right';
    g.fillText(title, canvas.width - font * 0.6, band / 2, Math.max(0, canvas.width - font * 1.8 - g.measureText(stepText).width * 1.25));
    g.textAlign = 'left';
    // Scaled to fit under the band, centred: the figures' shape may change while recording.
    const room = canvas.height - band;
    const k = Math.min(canvas.width / picture.width, room / picture.height);
    const w = Math.round(picture.width * k);
    const h = Math.round(picture.height * k);
    g.imageSmoothingQuality = 'high';
    g.drawImage(picture, Math.floor((canvas.width - w) / 2), band + Math.floor((room - h) / 2), w, h);
    this.track?.requestFrame();
    if (this.gif) {
      const pixels = g.getImageData(0, 0, canvas.width, canvas.height).data.buffer;
      this.encoding++;
      this.gif.postMessage({ type: 'frame', pixels, time: now - this.start - this.paused }, [pixels]);
    }
    this.frames++;
    if (this.frames >= this.wanted) void this.stop();
    this.o.onProgress();
  }

  /** Sizes the canvas by the first picture and starts the encoders.
   * @private @param {HTMLCanvasElement} picture @param {number} now */
  begin(picture, now) {
    const { canvas, settings } = this;
    canvas.width = settings.width;
    this.band = Math.round(Math.max(18, settings.width / 24));
    canvas.height = 2 * Math.round((this.band + (settings.width * picture.height) / picture.width) / 2);
    this.g = canvas.getContext('2d', { willReadFrequently: settings.format !== 'webm' });
    this.start = now;
    this.due = now;
    if (this.videoType) {
      const stream = canvas.captureStream(0);
      this.track = /** @type {CanvasCaptureMediaStreamTrack} */ (stream.getVideoTracks()[0]);
      // About 0.2 bits a pixel a frame: sharp text on flat colour.
      const bits = Math.round(0.2 * canvas.width * canvas.height * settings.fps);
      this.video = new MediaRecorder(stream, { mimeType: this.videoType, videoBitsPerSecond: Math.max(250_000, bits) });
      this.video.addEventListener('dataavailable', (e) => {
        if (e.data.size) this.videoParts.push(e.data);
      });
      this.video.addEventListener('error', () => this.fail('the browser stopped recording the video'));
      this.video.start(1000);
    }
    if (settings.format !== 'webm') {
      this.gif = new Worker(new URL('./gif-worker.js', import.meta.url), { type: 'module' });
      this.gif.addEventListener('error', () => this.fail('the GIF encoder failed to start'));
      this.gif.addEventListener('message', (e) => {
        if (e.data.type === 'error') this.fail(`GIF: ${e.data.message}`);
        if (e.data.type === 'encoded') this.encoding--;
      });
      this.gif.postMessage({ type: 'start', width: canvas.width, height: canvas.height, fps: settings.fps });
    }
  }

  /** Stops taking frames and saves what was taken (nothing, said so, if none was). */
  async stop() {
    if (!this.recording) return;
    this.recording = false;
    this.saving = this.frames > 0;
    if (this.frames === 0) {
      this.o.onError('nothing was recorded: no picture was drawn while recording (frames are taken as the run trains: press Play)');
      return;
    }
    try {
      /** @type {{ name: string, blob: Blob }[]} */
      const files = [];
      const [video, gif] = await Promise.all([this.endVideo(), this.endGif()]);
      this.saving = false;
      if (this.failed) return;
      if (video) files.push({ name: `${this.o.name}.webm`, blob: video });
      if (gif) files.push({ name: `${this.o.name}.gif`, blob: gif });
      this.o.onDone({ files, frames: this.frames, width: this.canvas.width, height: this.canvas.height });
    } catch (err) {
      this.fail(String(/** @type {Error} */ (err).message ?? err));
    }
  }

  /** The video, once its last frame has had its time on screen (the canvas stream takes a
   * requested frame after the page's next rendering; stopping first would lose it).
   * @private @returns {Promise<Blob | null>} */
  async endVideo() {
    const video = this.video;
    if (!video) return null;
    await new Promise((resolve) => setTimeout(resolve, Math.max(1000 / this.settings.fps, 200)));
    return new Promise((resolve) => {
      const done = () => {
        this.track?.stop();
        resolve(new Blob(this.videoParts, { type: 'video/webm' }));
        this.videoParts = [];
      };
      if (video.state === 'inactive') done();
      else {
        video.addEventListener('stop', done, { once: true });
        video.stop();
      }
    });
  }

  /** @private @returns {Promise<Blob | null>} */
  endGif() {
    const gif = this.gif;
    if (!gif) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      /** @param {MessageEvent} e */
      const answer = (e) => {
        if (e.data.type !== 'done' && e.data.type !== 'error') return;
        gif.removeEventListener('message', answer);
        gif.terminate();
        if (e.data.type === 'done') resolve(new Blob(e.data.parts, { type: 'image/gif' }));
        else reject(new Error(`GIF: ${e.data.message}`));
      };
      gif.addEventListener('message', answer);
      gif.postMessage({ type: 'end' });
    });
  }

  /** Ends the recording with an error, saving nothing. @private @param {string} message */
  fail(message) {
    if (this.failed) return;
    this.failed = true;
    this.recording = false;
    this.saving = false;
    this.gif?.terminate();
    if (this.video?.state !== 'inactive') this.video?.stop();
    this.track?.stop();
    this.o.onError(message);
  }
}
