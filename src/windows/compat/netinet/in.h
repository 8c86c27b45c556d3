/* SPDX-License-Identifier: MIT */
/* <netinet/in.h> for the Windows build: Winsock has the same types. */
#pragma once
#include <winsock2.h>
#include <ws2tcpip.h>
