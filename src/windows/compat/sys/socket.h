/* SPDX-License-Identifier: MIT */
/* <sys/socket.h> for the Windows build: Winsock has the same types. */
#pragma once
#include <winsock2.h>
#include <ws2tcpip.h>
