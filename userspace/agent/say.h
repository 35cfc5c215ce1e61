/* How the agent talks to the user on stderr: one line, "agent: " first. */
#ifndef AGENT_SAY_H
#define AGENT_SAY_H

/* Prints "agent: ", the message FMT makes and a newline, as one write (the
 * outputs' and the start-up watchdog's threads say things too). Keeps errno. */
void agent__say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
