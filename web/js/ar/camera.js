// The rear camera behind the stage, and a frame of it as a JPEG for a capture.

/** Starts the camera in `video`; resolves to "playing", "none" (no camera API) or the error's name. */
export async function startCamera(video) {
  if (!navigator.mediaDevices || typeof navigator.mediaDevices.getUserMedia !== "function") return "none";
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" } }, audio: false });
    video.srcObject = stream;
    video.muted = true;
    await video.play();
    return "playing";
  } catch (e) {
    return (e && e.name) || "Error";
  }
}

/** The current video frame as a JPEG Blob (long side at most `maxSide` px); null without one. */
export function grabFrame(video, maxSide = 1600) {
  const w = video.videoWidth;
  const h = video.videoHeight;
  if (!w || !h) return Promise.resolve(null);
  const scale = Math.min(1, maxSide / Math.max(w, h));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(w * scale);
  canvas.height = Math.round(h * scale);
  canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob((blob) => resolve(blob), "image/jpeg", 0.85));
}
