package main

// Placeholder until this subcommand lands; its owner replaces this file.
func cmdAssistantsImport(env *cliEnv, args []string) int { return env.usage("this command is not built yet") }

func cmdAssistantsExport(env *cliEnv, args []string) int { return env.usage("this command is not built yet") }

