/**
 * The settings of notifications (docs/configuration.md, PLAYFORM_SMTP_URL and PLAYFORM_NOTIFY_BACKOFF_SECONDS; docs/forms.md, "Notifications: how they are delivered"), parsed with the app's configuration
 * (server/config.ts spreads notifyEnvShape into its schema).
 */
import { z } from "zod";
import { parseBackoff } from "./notify-message";

export const notifyEnvShape = {
  /** The SMTP server emails go through, as a nodemailer URL: smtp://user:pass@host:587, smtps://… Unset: emails fail, saying so. */
  PLAYFORM_SMTP_URL: z
    .string()
    .trim()
    .transform((s) => s || undefined)
    .pipe(
      z
        .string()
        .refine(
          (s) => URL.canParse(s) && /^smtps?:$/.test(new URL(s).protocol),
          "must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587",
        )
        .optional(),
    )
    .optional(),
  /** The sender of the emails; unset: playform@<the public URL's host>. */
  PLAYFORM_SMTP_FROM: z.string().trim().min(3).optional(),
  /** Delays in seconds before each retry of a failed delivery; as many retries as delays. */
  PLAYFORM_NOTIFY_BACKOFF_SECONDS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      try {
        return parseBackoff(text);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
};
